package io.raftline.broker.fetchsession;

import io.raftline.broker.replica.TopicPartition;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import java.util.HashMap;
import java.util.Map;

/**
 * A follower's half of its fetch session with one leader (KIP-227's fetcher side; the leader's half is
 * {@link FetchSessionCache}). The fetcher builds each request whole, naming every partition it wants; this turns it
 * into what goes on the wire: the first request full, asking for a session; once the leader answered with one, only
 * the partitions added or changed since the last answered request, and the ones no longer wanted as forgotten. The
 * fetcher applies each answer against the whole request, which is what the leader's session holds.
 *
 * <pre>
 *   state                      request                       answer                     next state
 *   no session (id 0)          full, (0, 0)                  session id S               in session S, epoch 1
 *                                                            id 0 (no slot, old leader) no session
 *   in session S, epoch N      incremental (S, N)            id S                       in session S, epoch N + 1
 *                                                            any error, another id      starting over
 *   starting over (S known)    full, (S, 0): closes S        as for (0, 0)
 *   any, stream broken         (startOver())                                            starting over
 * </pre>
 * Not thread-safe: one per fetcher thread, one request in flight.
 */
public final class FollowerFetchSession {

    private int sessionId = FetchSessionCache.NO_SESSION;
    private int nextEpoch = FetchSessionCache.INITIAL_EPOCH;
    /** What the leader's session holds after the last answered request. */
    private Map<TopicPartition, FetchRequest.FetchPartition> held = new HashMap<>();
    /** What it will hold once the request in flight is answered; null when none is. */
    private Map<TopicPartition, FetchRequest.FetchPartition> pending;
    private boolean pendingFull;

    /** The wire form of {@code whole} (every partition wanted now) in this session. */
    public FetchRequest toWire(FetchRequest whole) {
        Map<TopicPartition, FetchRequest.FetchPartition> wanted = new HashMap<>();
        for (FetchRequest.FetchPartition p : whole.getPartitionsList()) {
            wanted.put(new TopicPartition(p.getTopic(), p.getPartition()), p);
        }
        pending = wanted;
        pendingFull = sessionId == FetchSessionCache.NO_SESSION || nextEpoch == FetchSessionCache.INITIAL_EPOCH;
        FetchRequest.Builder b = whole.toBuilder().setSessionId(sessionId).setSessionEpoch(nextEpoch);
        if (pendingFull) {
            return b.build();
        }
        b.clearPartitions();
        for (FetchRequest.FetchPartition p : whole.getPartitionsList()) {
            if (!p.equals(held.get(new TopicPartition(p.getTopic(), p.getPartition())))) {
                b.addPartitions(p);
            }
        }
        for (TopicPartition tp : held.keySet()) {
            if (!wanted.containsKey(tp)) {
                b.addForgotten(FetchRequest.ForgottenPartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition()));
            }
        }
        return b.build();
    }

    /** The answer to the request last built. */
    public void onResponse(FetchResponse response) {
        if (pending == null) {
            throw new IllegalStateException("an answer with no request in flight");
        }
        if (response.getError().getCode() != ErrorCode.NONE) {
            startOver();
            return;
        }
        if (pendingFull) {
            sessionId = response.getSessionId();
            if (sessionId == FetchSessionCache.NO_SESSION) {
                held = new HashMap<>();
                nextEpoch = FetchSessionCache.INITIAL_EPOCH;
            } else {
                held = pending;
                nextEpoch = FetchSessionCache.nextEpoch(FetchSessionCache.INITIAL_EPOCH);
            }
        } else if (response.getSessionId() != sessionId) {
            startOver();
            return;
        } else {
            held = pending;
            nextEpoch = FetchSessionCache.nextEpoch(nextEpoch);
        }
        pending = null;
    }

    /**
     * The answer was lost (the stream broke) or refused: the next request is full, and names the old session (if any)
     * with epoch 0 so that the leader frees its slot.
     */
    public void startOver() {
        nextEpoch = FetchSessionCache.INITIAL_EPOCH;
        held = new HashMap<>();
        pending = null;
    }

    /** The session the next request names (0: none). */
    public int sessionId() {
        return sessionId;
    }
}
