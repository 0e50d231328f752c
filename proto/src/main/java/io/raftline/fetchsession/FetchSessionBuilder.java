package io.raftline.fetchsession;

import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import java.util.HashMap;
import java.util.Map;

/**
 * A fetcher's half of its incremental fetch session with one broker (KIP-227's fetcher side, over gRPC; the broker's
 * half is its {@code FetchSessionCache}), used alike by a follower's replica fetcher and by the SDK consumer's
 * fetcher. The fetcher builds each request whole, naming every partition it wants read now; this turns it into what
 * goes on the wire: the first request full, asking for a session; once the broker answered with one, only the
 * partitions added or changed (fetch offset, leader epoch, limits: any field) since the last answered request, and
 * the ones no longer wanted as forgotten. The fetcher applies each answer against the whole request, which is what
 * the broker's session holds; an answer in a session carries only partitions with something new.
 *
 * <pre>
 *   state                      request                       answer                     next state
 *   no session (id 0)          full, (0, 0)                  session id S               in session S, epoch 1
 *                                                            id 0 (no slot, old broker) no session
 *   in session S, epoch N      incremental (S, N)            id S                       in session S, epoch N + 1
 *                                                            any error, another id      starting over
 *   starting over (S known)    full, (S, 0): closes S        as for (0, 0)
 *   any, stream broken         (startOver())                                            starting over
 *   in session S, closing      (S, -1), nothing named        (closing())                no session
 * </pre>
 * A broker without sessions (older, or out of slots) answers id 0 to every full fetch, so the fetcher goes on with
 * full fetches. Errors that refuse a session: FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH (older brokers:
 * INVALID_REQUEST); any top-level error starts over.
 *
 * <p>Not thread-safe: one per fetcher and broker, with one request in flight at a time (epochs are sequential).
 */
public final class FetchSessionBuilder {

    public static final int NO_SESSION = 0;
    public static final int INITIAL_EPOCH = 0;
    public static final int FINAL_EPOCH = -1;

    private record Key(String topic, int partition) {
        static Key of(FetchRequest.FetchPartition p) {
            return new Key(p.getTopic(), p.getPartition());
        }
    }

    private int sessionId = NO_SESSION;
    private int nextEpoch = INITIAL_EPOCH;
    /** What the broker's session holds after the last answered request. */
    private Map<Key, FetchRequest.FetchPartition> held = new HashMap<>();
    /** What it will hold once the request in flight is answered; null when none is. */
    private Map<Key, FetchRequest.FetchPartition> pending;
    private boolean pendingFull;

    /** The epoch after {@code epoch} (after Integer.MAX_VALUE: 1, as 0 and -1 mean full and final). */
    public static int nextEpoch(int epoch) {
        return epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
    }

    /** The wire form of {@code whole} (every partition wanted now) in this session; one request in flight at a time. */
    public FetchRequest toWire(FetchRequest whole) {
        if (pending != null) {
            throw new IllegalStateException("a fetch of session " + sessionId + " is still in flight");
        }
        Map<Key, FetchRequest.FetchPartition> wanted = new HashMap<>();
        for (FetchRequest.FetchPartition p : whole.getPartitionsList()) {
            wanted.put(Key.of(p), p);
        }
        pending = wanted;
        pendingFull = sessionId == NO_SESSION || nextEpoch == INITIAL_EPOCH;
        FetchRequest.Builder b = whole.toBuilder().setSessionId(sessionId).setSessionEpoch(nextEpoch).clearForgotten();
        if (pendingFull) {
            return b.build();
        }
        b.clearPartitions();
        for (FetchRequest.FetchPartition p : whole.getPartitionsList()) {
            if (!p.equals(held.get(Key.of(p)))) {
                b.addPartitions(p);
            }
        }
        for (Key k : held.keySet()) {
            if (!wanted.containsKey(k)) {
                b.addForgotten(FetchRequest.ForgottenPartition.newBuilder().setTopic(k.topic()).setPartition(k.partition()));
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
            if (sessionId == NO_SESSION) {
                held = new HashMap<>();
                nextEpoch = INITIAL_EPOCH;
            } else {
                held = pending;
                nextEpoch = nextEpoch(INITIAL_EPOCH);
            }
        } else if (response.getSessionId() != sessionId) {
            startOver();
            return;
        } else {
            held = pending;
            nextEpoch = nextEpoch(nextEpoch);
        }
        pending = null;
    }

    /**
     * The answer was lost (the stream broke, the request timed out) or refused: the next request is full, and names
     * the old session (if any) with epoch 0 so that the broker frees its slot.
     */
    public void startOver() {
        nextEpoch = INITIAL_EPOCH;
        held = new HashMap<>();
        pending = null;
    }

    /**
     * The request that closes the session (epoch -1, nothing named, no wait), built on {@code base}'s settings; null
     * when there is no session to close. Afterwards this holds no session (any answer in flight is ignored).
     */
    public FetchRequest closing(FetchRequest base) {
        if (sessionId == NO_SESSION) {
            startOver();
            return null;
        }
        FetchRequest close = base.toBuilder().clearPartitions().clearForgotten().setSessionId(sessionId)
            .setSessionEpoch(FINAL_EPOCH).setMaxWaitMs(0).setMinBytes(0).build();
        sessionId = NO_SESSION;
        startOver();
        return close;
    }

    /** The session the next request names (0: none). */
    public int sessionId() {
        return sessionId;
    }

    /** Whether a request is in flight (built, not yet answered or given up). */
    public boolean inFlight() {
        return pending != null;
    }

    /** Whether the next request is incremental (an answered session). */
    public boolean incremental() {
        return sessionId != NO_SESSION && nextEpoch != INITIAL_EPOCH;
    }
}
