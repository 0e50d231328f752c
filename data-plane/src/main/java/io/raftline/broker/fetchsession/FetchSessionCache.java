package io.raftline.broker.fetchsession;

import io.raftline.broker.replica.FetchManager;
import io.raftline.broker.replica.FetchManager.PartitionFetch;
import io.raftline.broker.replica.Partition;
import io.raftline.protocol.ErrorCode;
import io.raftline.broker.replica.TopicPartition;
import io.raftline.common.Time;
import io.raftline.fetchsession.FetchSessionBuilder;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * The broker's incremental fetch sessions (Kafka's KIP-227), one cache per broker, whichever listener or fetcher
 * opened them: a fetcher names its partitions once, in a full fetch that creates a session; its later fetches name
 * only the partitions whose fetch position or limits changed and those it forgets, and each answer carries only the
 * partitions with something new for it. A session is not bound to a connection: a client may go on with it on a new
 * one, as with Kafka.
 *
 * <p>What a request's (session id, epoch) means:
 * <pre>
 *   id   epoch   meaning
 *   0    -1      full fetch, no session (what fetches before KIP-227 send)
 *   0     0      full fetch; creates a session when a slot is free or one may be evicted (else answers id 0)
 *   ID    0      closes session ID, then as (0, 0)
 *   ID   -1      closes session ID, then a full fetch with no session (FINAL_EPOCH)
 *   ID    N      incremental: N must be the session's epoch (INVALID_FETCH_SESSION_EPOCH otherwise; an unknown ID is
 *                FETCH_SESSION_ID_NOT_FOUND). Named partitions are added or updated, then forgotten ones dropped;
 *                the session's epoch becomes N + 1 (after Integer.MAX_VALUE: 1)
 *   0     N      FETCH_SESSION_ID_NOT_FOUND (no session 0)
 * </pre>
 * A new session answers with epoch 1 next. An answer in a session includes a partition when it carries records, an
 * error (or anything else the fetcher must act on), or a high watermark, last stable offset or log start offset other
 * than the session last sent; a partition new to the session is always included once. A partition answered with
 * records moves to the end of the session's order, so that the next fetch's byte budget reaches the others first.
 *
 * <p>Slots are bounded ({@code max.incremental.fetch.session.cache.slots}). When they are all taken, a new session
 * evicts, in this order: the least recently used session, if unused for {@link #EVICTION_MS}; otherwise the least
 * valuable session that may be evicted, if it is worth less than the new one. Value: a follower's session
 * ({@code privileged}) before a consumer's, then more partitions before fewer. A follower's new session may evict any
 * consumer's session; otherwise only sessions older than {@link #EVICTION_MS} may go. When nothing may go, the full
 * fetch is answered without a session (id 0), and the fetcher goes on with full fetches.
 *
 * <p>Thread safety: every method is synchronized on the cache, which owns its sessions' state.
 */
public final class FetchSessionCache {

    /** How long a session is safe from eviction after its creation, and how long unused before it is stale. */
    public static final long EVICTION_MS = 120_000;

    public static final int NO_SESSION = FetchSessionBuilder.NO_SESSION;
    public static final int INITIAL_EPOCH = FetchSessionBuilder.INITIAL_EPOCH;
    public static final int FINAL_EPOCH = FetchSessionBuilder.FINAL_EPOCH;

    /** What a fetch request is, for the session layer. */
    public enum Kind { SESSIONLESS, FULL, INCREMENTAL, ERROR }

    /** Why an incremental fetch was refused; the answer carries it as its top-level error and no partitions. */
    public enum Refusal { FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH }

    /**
     * One request as the cache understood it: {@code partitions} are what to read, in order (for an incremental
     * fetch, every partition of the session with the request's changes merged in); {@code session} is null when the
     * answer carries session id 0.
     */
    public record Context(Kind kind, Refusal refusal, Session session, List<PartitionFetch> partitions) {
        /** The session id the answer carries. */
        public int sessionId() {
            return session == null ? NO_SESSION : session.id;
        }
    }

    /**
     * What a read found on one partition, in the order of {@link Context#partitions()}. {@code mustSend}: an error, a
     * diverging epoch or anything else the fetcher must see whatever the offsets say.
     */
    public record Observed(long highWatermark, long lastStableOffset, long logStartOffset, boolean hasRecords,
                           boolean mustSend) {
    }

    /** A session; its fields are the cache's, read and written under its lock. */
    public static final class Session {
        final int id;
        final boolean privileged;
        final long createdMs;
        long lastUsedMs;
        int epoch;
        /** In read order. */
        final LinkedHashMap<TopicPartition, Cached> partitions = new LinkedHashMap<>();

        Session(int id, boolean privileged, long nowMs) {
            this.id = id;
            this.privileged = privileged;
            this.createdMs = nowMs;
            this.lastUsedMs = nowMs;
        }

        public int id() {
            return id;
        }
    }

    /** A partition of a session: what the fetcher asked last, and what it was last sent (-1: nothing yet). */
    private static final class Cached {
        PartitionFetch fetch;
        long highWatermark = -1;
        long lastStableOffset = -1;
        long logStartOffset = -1;

        Cached(PartitionFetch fetch) {
            this.fetch = fetch;
        }
    }

    private final int maxSlots;
    private final Time time;
    private final RandomGenerator random;
    private final Map<Integer, Session> sessions = new HashMap<>();
    private long evictions;
    private int cachedPartitions;
    /** Fetches opened, by fetcher (0 consumers, 1 followers) and kind. */
    private final long[][] requests = new long[2][Kind.values().length];

    /** {@code random} makes session ids; {@code time}'s monotonic clock ages sessions. */
    public FetchSessionCache(int maxSlots, Time time, RandomGenerator random) {
        if (maxSlots < 0) {
            throw new IllegalArgumentException("max.incremental.fetch.session.cache.slots must be at least 0, not " + maxSlots);
        }
        this.maxSlots = maxSlots;
        this.time = time;
        this.random = random;
    }

    /**
     * Opens a fetch: what to read and under which session. {@code privileged}: a follower's fetch.
     * {@code forgotten} counts only in an incremental fetch.
     */
    public synchronized Context open(int sessionId, int epoch, boolean privileged, List<PartitionFetch> requested,
                                     Collection<TopicPartition> forgotten) {
        long nowMs = time.hiResMilliseconds();
        Kind kind;
        Context context;
        if (epoch == INITIAL_EPOCH || epoch == FINAL_EPOCH) {
            if (sessionId != NO_SESSION) {
                remove(sessions.get(sessionId));
            }
            if (epoch == FINAL_EPOCH) {
                kind = Kind.SESSIONLESS;
                context = new Context(kind, null, null, List.copyOf(requested));
            } else {
                kind = Kind.FULL;
                Session created = create(privileged, requested, nowMs);
                context = new Context(kind, null, created, List.copyOf(requested));
            }
        } else {
            Session session = sessions.get(sessionId);
            if (session == null) {
                kind = Kind.ERROR;
                context = new Context(kind, Refusal.FETCH_SESSION_ID_NOT_FOUND, null, List.of());
            } else if (session.epoch != epoch) {
                kind = Kind.ERROR;
                context = new Context(kind, Refusal.INVALID_FETCH_SESSION_EPOCH, null, List.of());
            } else {
                kind = Kind.INCREMENTAL;
                int before = session.partitions.size();
                // named ones first, then the forgotten (one named and forgotten at once is forgotten, as in Kafka)
                for (PartitionFetch pf : requested) {
                    Cached cached = session.partitions.get(pf.tp());
                    if (cached == null) {
                        session.partitions.put(pf.tp(), new Cached(pf));
                    } else {
                        cached.fetch = pf;
                    }
                }
                for (TopicPartition tp : forgotten) {
                    session.partitions.remove(tp);
                }
                cachedPartitions += session.partitions.size() - before;
                session.epoch = nextEpoch(epoch);
                session.lastUsedMs = nowMs;
                List<PartitionFetch> all = new ArrayList<>(session.partitions.size());
                session.partitions.values().forEach(c -> all.add(c.fetch));
                context = new Context(kind, null, session, List.copyOf(all));
            }
        }
        requests[privileged ? 1 : 0][kind.ordinal()]++;
        return context;
    }

    /**
     * The answer to an opened fetch: which of {@code observed} (one per {@link Context#partitions()}, same order) it
     * carries. A session remembers what it sent; partitions sent with records move to the end of its order.
     */
    public synchronized BitSet respond(Context context, List<Observed> observed) {
        if (observed.size() != context.partitions().size()) {
            throw new IllegalArgumentException(observed.size() + " observations for " + context.partitions().size()
                + " partitions");
        }
        BitSet send = new BitSet(observed.size());
        Session session = context.session();
        if (session == null) {
            send.set(0, observed.size());
            return send;
        }
        session.lastUsedMs = time.hiResMilliseconds();
        List<TopicPartition> toEnd = new ArrayList<>();
        for (int i = 0; i < observed.size(); i++) {
            TopicPartition tp = context.partitions().get(i).tp();
            Observed o = observed.get(i);
            Cached cached = session.partitions.get(tp);
            boolean changed = cached == null || cached.highWatermark != o.highWatermark()
                || cached.lastStableOffset != o.lastStableOffset() || cached.logStartOffset != o.logStartOffset();
            if (cached != null) {
                // After an error the next answer sends the partition again, whatever its offsets.
                cached.highWatermark = o.mustSend() ? -1 : o.highWatermark();
                cached.lastStableOffset = o.lastStableOffset();
                cached.logStartOffset = o.logStartOffset();
                if (o.hasRecords()) {
                    toEnd.add(tp);
                }
            }
            if (context.kind() != Kind.INCREMENTAL || changed || o.hasRecords() || o.mustSend()) {
                send.set(i);
            }
        }
        for (TopicPartition tp : toEnd) {
            session.partitions.put(tp, session.partitions.remove(tp));
        }
        return send;
    }

    /**
     * {@link #respond} over what the fetch manager read for {@code context}: the partitions the answer carries, in read
     * order. No transactions: the last stable offset is the high watermark.
     */
    public List<FetchManager.PartitionData> answer(Context context, List<FetchManager.PartitionData> data) {
        List<Observed> observed = new ArrayList<>(data.size());
        for (FetchManager.PartitionData pd : data) {
            Partition.ReadResult r = pd.result();
            observed.add(new Observed(r.highWatermark(), r.highWatermark(), r.logStartOffset(),
                r.data() != null && r.data().sizeInBytes() > 0, r.error() != ErrorCode.NONE || r.diverging()));
        }
        BitSet send = respond(context, observed);
        if (send.cardinality() == data.size()) {
            return data;
        }
        List<FetchManager.PartitionData> answered = new ArrayList<>(send.cardinality());
        for (int i = send.nextSetBit(0); i >= 0; i = send.nextSetBit(i + 1)) {
            answered.add(data.get(i));
        }
        return answered;
    }

    private Session create(boolean privileged, List<PartitionFetch> requested, long nowMs) {
        if (sessions.size() >= maxSlots && !evictFor(privileged, requested.size(), nowMs)) {
            return null;
        }
        int id;
        do {
            id = random.nextInt();
        } while (id == NO_SESSION || sessions.containsKey(id));
        Session session = new Session(id, privileged, nowMs);
        for (PartitionFetch pf : requested) {
            session.partitions.put(pf.tp(), new Cached(pf));
        }
        session.epoch = nextEpoch(INITIAL_EPOCH);
        sessions.put(id, session);
        cachedPartitions += session.partitions.size();
        return session;
    }

    /** Frees one slot for a new session if the rules in the class comment let one go. */
    private boolean evictFor(boolean privileged, int size, long nowMs) {
        if (sessions.isEmpty()) {
            return false;
        }
        Session leastRecent = null;
        Session leastValuable = null;
        for (Session s : sessions.values()) {
            if (leastRecent == null || s.lastUsedMs < leastRecent.lastUsedMs) {
                leastRecent = s;
            }
            boolean evictable = nowMs - s.createdMs > EVICTION_MS || (privileged && !s.privileged);
            if (evictable && (leastValuable == null || lessValuable(s, leastValuable))) {
                leastValuable = s;
            }
        }
        Session victim = null;
        if (nowMs - leastRecent.lastUsedMs > EVICTION_MS) {
            victim = leastRecent;
        } else if (leastValuable != null && ((privileged && !leastValuable.privileged)
            || (privileged == leastValuable.privileged && leastValuable.partitions.size() < size))) {
            victim = leastValuable;
        }
        if (victim == null) {
            return false;
        }
        remove(victim);
        evictions++;
        return true;
    }

    private static boolean lessValuable(Session a, Session b) {
        if (a.privileged != b.privileged) {
            return !a.privileged;
        }
        if (a.partitions.size() != b.partitions.size()) {
            return a.partitions.size() < b.partitions.size();
        }
        return a.lastUsedMs < b.lastUsedMs;
    }

    private void remove(Session session) {
        if (session != null && sessions.remove(session.id) != null) {
            cachedPartitions -= session.partitions.size();
        }
    }

    static int nextEpoch(int epoch) {
        return FetchSessionBuilder.nextEpoch(epoch);
    }

    /** Sessions held now. */
    public synchronized int size() {
        return sessions.size();
    }

    /** Partitions held over all sessions. */
    public synchronized int cachedPartitions() {
        return cachedPartitions;
    }

    /** Sessions evicted to make room for new ones, since start. */
    public synchronized long evictions() {
        return evictions;
    }

    /** Fetches opened of {@code kind}, since start. */
    public synchronized long requests(Kind kind) {
        return requests[0][kind.ordinal()] + requests[1][kind.ordinal()];
    }

    /** Fetches opened of {@code kind} by followers ({@code privileged}) or by consumers, since start. */
    public synchronized long requests(boolean privileged, Kind kind) {
        return requests[privileged ? 1 : 0][kind.ordinal()];
    }

    /** The epoch the session's next incremental fetch must carry (tests); -1 when there is no such session. */
    synchronized int epochOf(int sessionId) {
        Session s = sessions.get(sessionId);
        return s == null ? -1 : s.epoch;
    }
}
