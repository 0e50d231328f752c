package io.raftline.broker.fetchsession;

import static io.raftline.broker.fetchsession.FetchSessionCache.EVICTION_MS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.broker.fetchsession.FetchSessionCache.Context;
import io.raftline.broker.fetchsession.FetchSessionCache.Kind;
import io.raftline.broker.fetchsession.FetchSessionCache.Observed;
import io.raftline.broker.fetchsession.FetchSessionCache.Refusal;
import io.raftline.broker.replica.FetchManager.PartitionFetch;
import io.raftline.broker.replica.TopicPartition;
import io.raftline.common.ManualTime;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The fetch session cache's decisions (KIP-227) as tables: what each (id, epoch) means, what an answer carries, eviction. */
class FetchSessionCacheTest {

    private static final long SEED = 0x5e55_1075L;

    private final ManualTime time = new ManualTime();

    private FetchSessionCache cache(int slots) {
        return new FetchSessionCache(slots, time, new SplittableRandom(SEED));
    }

    private static TopicPartition tp(int p) {
        return new TopicPartition("t", p);
    }

    private static PartitionFetch fetch(int p, long offset) {
        return new PartitionFetch(tp(p), offset, 1024, -1, -1);
    }

    private static List<PartitionFetch> fetches(int... partitions) {
        return IntStream.of(partitions).mapToObj(p -> fetch(p, 0)).toList();
    }

    private static List<TopicPartition> tps(Context c) {
        return c.partitions().stream().map(PartitionFetch::tp).toList();
    }

    private static Observed quiet(long hw) {
        return new Observed(hw, hw, 0, false, false);
    }

    /** Answers every partition of {@code c} with {@code hw}, nothing else new: fixes what the session last sent. */
    private static void answerAll(FetchSessionCache cache, Context c, long hw) {
        cache.respond(c, c.partitions().stream().map(p -> quiet(hw)).toList());
    }

    // ---------------------------------------------------------------------------------------------------------
    // What a request's (session id, epoch) means

    /** {@code id}: 0, or the live session's id ("live"), or one no session has ("unknown"); {@code epoch} likewise. */
    record Meaning(String name, String id, String epoch, Kind kind, Refusal refusal, boolean answersWithSession,
                   boolean liveSessionSurvives) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Meaning> meanings() {
        return Stream.of(
            new Meaning("0/-1: sessionless full fetch", "0", "-1", Kind.SESSIONLESS, null, false, true),
            new Meaning("0/0: full fetch creating a session", "0", "0", Kind.FULL, null, true, true),
            new Meaning("live/0: closes it and creates another", "live", "0", Kind.FULL, null, true, false),
            new Meaning("live/-1: closes it, sessionless (FINAL_EPOCH)", "live", "-1", Kind.SESSIONLESS, null, false, false),
            new Meaning("live/its epoch: incremental", "live", "next", Kind.INCREMENTAL, null, true, true),
            new Meaning("live/an older epoch", "live", "previous", Kind.ERROR, Refusal.INVALID_FETCH_SESSION_EPOCH, false, true),
            new Meaning("live/a later epoch", "live", "later", Kind.ERROR, Refusal.INVALID_FETCH_SESSION_EPOCH, false, true),
            new Meaning("live/epoch -2", "live", "-2", Kind.ERROR, Refusal.INVALID_FETCH_SESSION_EPOCH, false, true),
            new Meaning("unknown/1", "unknown", "1", Kind.ERROR, Refusal.FETCH_SESSION_ID_NOT_FOUND, false, true),
            new Meaning("0/1: there is no session 0", "0", "1", Kind.ERROR, Refusal.FETCH_SESSION_ID_NOT_FOUND, false, true),
            new Meaning("unknown/0: nothing to close, creates one", "unknown", "0", Kind.FULL, null, true, true),
            new Meaning("unknown/-1: nothing to close, sessionless", "unknown", "-1", Kind.SESSIONLESS, null, false, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("meanings")
    void requestMeaning(Meaning row) {
        FetchSessionCache cache = cache(10);
        Context first = cache.open(0, 0, false, fetches(0, 1), List.of());
        int live = first.sessionId();
        assertThat(live).isNotZero();
        answerAll(cache, first, 5);
        // one incremental round, so the live session is at epoch 2
        Context second = cache.open(live, 1, false, List.of(), List.of());
        answerAll(cache, second, 5);
        assertThat(cache.epochOf(live)).isEqualTo(2);

        int id = switch (row.id()) {
            case "0" -> 0;
            case "live" -> live;
            default -> live + 1;
        };
        int epoch = switch (row.epoch()) {
            case "next" -> 2;
            case "previous" -> 1;
            case "later" -> 3;
            default -> Integer.parseInt(row.epoch());
        };
        Context c = cache.open(id, epoch, false, fetches(2), List.of());
        assertThat(c.kind()).isEqualTo(row.kind());
        assertThat(c.refusal()).isEqualTo(row.refusal());
        assertThat(c.sessionId() != 0).isEqualTo(row.answersWithSession());
        assertThat(cache.epochOf(live) != -1).as("session %d still cached", live).isEqualTo(row.liveSessionSurvives());
        switch (row.kind()) {
            case ERROR -> {
                assertThat(c.partitions()).isEmpty();
                assertThat(cache.epochOf(live)).as("a refused fetch changes nothing").isEqualTo(row.liveSessionSurvives() ? 2 : -1);
            }
            case SESSIONLESS -> assertThat(tps(c)).containsExactly(tp(2));
            case FULL -> {
                assertThat(tps(c)).containsExactly(tp(2));
                assertThat(c.sessionId()).isNotEqualTo(live);
                assertThat(cache.epochOf(c.sessionId())).as("a new session's first incremental fetch").isEqualTo(1);
            }
            case INCREMENTAL -> {
                assertThat(c.sessionId()).isEqualTo(live);
                assertThat(tps(c)).containsExactly(tp(0), tp(1), tp(2));
                assertThat(cache.epochOf(live)).isEqualTo(3);
            }
        }
    }

    @Test
    void incrementalFetchesAddUpdateAndForgetPartitions() {
        FetchSessionCache cache = cache(10);
        Context full = cache.open(0, 0, false, fetches(0, 1, 2), List.of());
        int id = full.sessionId();
        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.cachedPartitions()).isEqualTo(3);
        answerAll(cache, full, 0);

        // 1 moves to offset 7, 3 is new, 0 forgotten; 2 keeps its cached position
        Context inc = cache.open(id, 1, false, List.of(fetch(1, 7), fetch(3, 0)), List.of(tp(0)));
        assertThat(inc.partitions()).containsExactly(fetch(1, 7), fetch(2, 0), fetch(3, 0));
        assertThat(cache.cachedPartitions()).isEqualTo(3);
        answerAll(cache, inc, 0);

        // forgetting one never fetched is harmless; an empty incremental fetch reads the whole session
        Context empty = cache.open(id, 2, false, List.of(), List.of(tp(9)));
        assertThat(empty.partitions()).containsExactly(fetch(1, 7), fetch(2, 0), fetch(3, 0));
        Context both = cache.open(id, 3, false, List.of(fetch(4, 0)), List.of(tp(4)));
        assertThat(tps(both)).as("named and forgotten at once: forgotten").containsExactly(tp(1), tp(2), tp(3));
        Context gone = cache.open(id, 4, false, List.of(), List.of(tp(1), tp(2), tp(3)));
        assertThat(gone.partitions()).isEmpty();
        assertThat(cache.cachedPartitions()).isZero();
        assertThat(cache.requests(Kind.INCREMENTAL)).isEqualTo(4);
        assertThat(cache.requests(Kind.FULL)).isEqualTo(1);
    }

    @Test
    void aFullFetchCountsNoForgottenPartitions() {
        FetchSessionCache cache = cache(10);
        Context full = cache.open(0, 0, false, fetches(0, 1), List.of(tp(0)));
        assertThat(tps(full)).containsExactly(tp(0), tp(1));
    }

    // ---------------------------------------------------------------------------------------------------------
    // What an answer carries

    /** The session last sent hw 10, lso 10, log start 0 for the partition; then the read finds {@code now}. */
    record Answer(String name, Observed now, boolean sentIncremental) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Answer> answers() {
        return Stream.of(
            new Answer("nothing new", new Observed(10, 10, 0, false, false), false),
            new Answer("records", new Observed(10, 10, 0, true, false), true),
            new Answer("a new high watermark", new Observed(11, 10, 0, false, false), true),
            new Answer("a new last stable offset", new Observed(10, 11, 0, false, false), true),
            new Answer("a new log start offset", new Observed(10, 10, 3, false, false), true),
            new Answer("an error (or a diverging epoch)", new Observed(10, 10, 0, false, true), true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("answers")
    void anIncrementalAnswerCarriesOnlyWhatIsNew(Answer row) {
        FetchSessionCache cache = cache(10);
        Context full = cache.open(0, 0, false, fetches(0), List.of());
        assertThat(cache.respond(full, List.of(new Observed(10, 10, 0, false, false))).get(0))
            .as("a full fetch answers every partition").isTrue();
        Context inc = cache.open(full.sessionId(), 1, false, List.of(), List.of());
        assertThat(cache.respond(inc, List.of(row.now())).get(0)).isEqualTo(row.sentIncremental());
        // what was sent is remembered: the same again is news only when it carries records or an error
        Context again = cache.open(full.sessionId(), 2, false, List.of(), List.of());
        assertThat(cache.respond(again, List.of(row.now())).get(0))
            .isEqualTo(row.now().hasRecords() || row.now().mustSend());
    }

    @Test
    void aSessionlessAnswerCarriesEverything() {
        FetchSessionCache cache = cache(10);
        Context c = cache.open(0, -1, false, fetches(0, 1), List.of());
        BitSet sent = cache.respond(c, List.of(quiet(1), quiet(1)));
        assertThat(sent.cardinality()).isEqualTo(2);
        assertThatThrownBy(() -> cache.respond(c, List.of(quiet(1)))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPartitionIsSentAgainOnceItsErrorIsGoneAndNewOnesAreSentOnce() {
        FetchSessionCache cache = cache(10);
        Context full = cache.open(0, 0, false, fetches(0), List.of());
        int id = full.sessionId();
        cache.respond(full, List.of(quiet(10)));
        Context error = cache.open(id, 1, false, List.of(), List.of());
        assertThat(cache.respond(error, List.of(new Observed(10, 10, 0, false, true))).get(0)).isTrue();
        Context healed = cache.open(id, 2, false, fetches(1), List.of());
        // partition 0 recovered with the same offsets it had before its error; partition 1 is new
        BitSet sent = cache.respond(healed, List.of(quiet(10), quiet(0)));
        assertThat(sent.get(0)).as("the partition that had an error").isTrue();
        assertThat(sent.get(1)).as("a partition new to the session").isTrue();
        Context quietNow = cache.open(id, 3, false, List.of(), List.of());
        assertThat(cache.respond(quietNow, List.of(quiet(10), quiet(0))).cardinality()).isZero();
    }

    @Test
    void partitionsSentWithRecordsMoveToTheEndOfTheReadOrder() {
        FetchSessionCache cache = cache(10);
        Context full = cache.open(0, 0, false, fetches(0, 1, 2, 3), List.of());
        int id = full.sessionId();
        cache.respond(full, List.of(new Observed(5, 5, 0, true, false), quiet(0), new Observed(5, 5, 0, true, false), quiet(0)));
        Context next = cache.open(id, 1, false, List.of(), List.of());
        assertThat(tps(next)).containsExactly(tp(1), tp(3), tp(0), tp(2));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Slots and eviction

    /**
     * Two slots, taken by sessions A and B ({@code aPrivileged}/{@code aSize}, likewise B), both created at time 0;
     * those marked used fetch again at {@code usedMs}. At {@code nowMs} a new full fetch of {@code newSize} partitions
     * ({@code newPrivileged}: a follower's) asks for a session. {@code victim}: "A", "B" or "none".
     */
    record Eviction(String name, boolean aPrivileged, int aSize, boolean aUsed, boolean bPrivileged, int bSize, boolean bUsed,
                    long usedMs, long nowMs, boolean newPrivileged, int newSize, String victim) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Eviction> evictions() {
        long young = EVICTION_MS / 2;
        long old = EVICTION_MS + 1;
        return Stream.of(
            new Eviction("young sessions stay", false, 5, false, false, 5, false, 0, young, false, 100, "none"),
            new Eviction("A unused too long: stale, goes first", false, 50, false, false, 5, true, old, old, false, 1, "A"),
            new Eviction("old, used, smaller than the new: the smaller goes", false, 3, true, false, 5, true, old, old, false, 4,
                "A"),
            new Eviction("old, used, the smallest is B", false, 6, true, false, 3, true, old, old, false, 4, "B"),
            new Eviction("old, used, none smaller than the new", false, 5, true, false, 5, true, old, old, false, 5, "none"),
            new Eviction("a follower evicts a young consumer session", false, 50, false, false, 40, false, 0, young, true, 1,
                "B"),
            new Eviction("a follower prefers a consumer's over a follower's", true, 1, false, false, 90, false, 0, young, true, 1,
                "B"),
            new Eviction("young followers' sessions stay", true, 1, false, true, 1, false, 0, young, true, 100, "none"),
            new Eviction("a consumer does not evict a follower's", true, 1, true, true, 1, true, old, old, false, 100, "none"),
            new Eviction("a consumer evicts an old consumer's before a follower's", true, 1, true, false, 8, true, old, old, false,
                9, "B"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("evictions")
    void evictsAsKip227Says(Eviction row) {
        FetchSessionCache cache = cache(2);
        Context a = cache.open(0, 0, row.aPrivileged(), partitions(row.aSize()), List.of());
        Context b = cache.open(0, 0, row.bPrivileged(), partitions(row.bSize()), List.of());
        answerAll(cache, a, 0);
        answerAll(cache, b, 0);
        time.advance(row.usedMs());
        if (row.aUsed()) {
            answerAll(cache, cache.open(a.sessionId(), 1, row.aPrivileged(), List.of(), List.of()), 0);
        }
        if (row.bUsed()) {
            answerAll(cache, cache.open(b.sessionId(), 1, row.bPrivileged(), List.of(), List.of()), 0);
        }
        time.advance(row.nowMs() - row.usedMs());

        Context created = cache.open(0, 0, row.newPrivileged(), partitions(row.newSize()), List.of());
        boolean aLives = cache.epochOf(a.sessionId()) != -1;
        boolean bLives = cache.epochOf(b.sessionId()) != -1;
        switch (row.victim()) {
            case "none" -> {
                assertThat(created.sessionId()).as("answered without a session").isZero();
                assertThat(created.kind()).isEqualTo(Kind.FULL);
                assertThat(aLives && bLives).isTrue();
                assertThat(cache.evictions()).isZero();
            }
            case "A" -> {
                assertThat(created.sessionId()).isNotZero();
                assertThat(aLives).isFalse();
                assertThat(bLives).isTrue();
                assertThat(cache.evictions()).isEqualTo(1);
            }
            default -> {
                assertThat(created.sessionId()).isNotZero();
                assertThat(aLives).isTrue();
                assertThat(bLives).isFalse();
                assertThat(cache.evictions()).isEqualTo(1);
            }
        }
        assertThat(cache.size()).isEqualTo(2);
    }

    private static List<PartitionFetch> partitions(int n) {
        List<PartitionFetch> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(fetch(i, 0));
        }
        return out;
    }

    @Test
    void noSlotsMeansNoSessions() {
        FetchSessionCache cache = cache(0);
        Context c = cache.open(0, 0, true, fetches(0), List.of());
        assertThat(c.kind()).isEqualTo(Kind.FULL);
        assertThat(c.sessionId()).isZero();
        assertThat(cache.size()).isZero();
        assertThat(cache.respond(c, List.of(quiet(1))).get(0)).isTrue();
        assertThatThrownBy(() -> new FetchSessionCache(-1, time, new SplittableRandom(SEED)))
            .hasMessage("max.incremental.fetch.session.cache.slots must be at least 0, not -1");
    }

    @Test
    void closingFreesTheSlot() {
        FetchSessionCache cache = cache(1);
        Context a = cache.open(0, 0, false, fetches(0), List.of());
        assertThat(cache.open(0, 0, false, fetches(0), List.of()).sessionId()).as("no free slot").isZero();
        cache.open(a.sessionId(), -1, false, fetches(0), List.of());
        assertThat(cache.size()).isZero();
        assertThat(cache.cachedPartitions()).isZero();
        assertThat(cache.open(0, 0, false, fetches(0), List.of()).sessionId()).isNotZero();
        assertThat(cache.evictions()).isZero();
    }

    @Test
    void sessionIdsAreNeverZeroNorReused() {
        // a generator that says 0, then the id already taken, then something else
        int[] script = {7, 0, 7, 9};
        int[] next = {0};
        java.util.random.RandomGenerator scripted = () -> (long) script[next[0]++] << 32;
        FetchSessionCache cache = new FetchSessionCache(10, time, scripted);
        assertThat(cache.open(0, 0, false, fetches(0), List.of()).sessionId()).isEqualTo(7);
        assertThat(cache.open(0, 0, false, fetches(0), List.of()).sessionId()).isEqualTo(9);
    }

    @Test
    void theSameSeedGivesTheSameIds() {
        List<Integer> first = new ArrayList<>();
        List<Integer> second = new ArrayList<>();
        for (List<Integer> ids : List.of(first, second)) {
            FetchSessionCache cache = cache(10);
            for (int i = 0; i < 5; i++) {
                ids.add(cache.open(0, 0, false, fetches(0), List.of()).sessionId());
            }
        }
        assertThat(first).as("seed %d", SEED).isEqualTo(second).doesNotContain(0).doesNotHaveDuplicates();
    }

    @Test
    void theEpochWrapsToOne() {
        assertThat(FetchSessionCache.nextEpoch(0)).isEqualTo(1);
        assertThat(FetchSessionCache.nextEpoch(41)).isEqualTo(42);
        assertThat(FetchSessionCache.nextEpoch(Integer.MAX_VALUE)).isEqualTo(1);
    }
}
