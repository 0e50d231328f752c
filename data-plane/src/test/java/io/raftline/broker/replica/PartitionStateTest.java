package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.log.EpochEndOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The leader's decisions as a table, in the manner of etcd raft's: each row is a state, one input, and the state and
 * effects expected. The leader is broker 1 at leader epoch 5, partition epoch 7, over replicas [1, 2, 3]; broker r is
 * registered with broker epoch 100 + r; the lag limit is 30 s; "now" is 50 000 ms unless a row says otherwise.
 */
class PartitionStateTest {

    private static final long LAG_MS = 30_000;
    private static final long NOW = 50_000;

    /**
     * What a row expects: the high watermark, ISR, ISR in flight, each follower's log end, and the effects; with
     * {@code unchanged}, the very state it started from.
     */
    record Expect(long highWatermark, List<Integer> isr, List<Integer> pendingIsr, Map<Integer, Long> followerEnds,
                  long advanceHighWatermarkTo, List<Integer> proposal, boolean expandNow, boolean unchanged) {
    }

    record Row(String name, PartitionState before, Function<PartitionState, PartitionState.Transition> input, Expect expect) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Row row(String name, PartitionState before, Function<PartitionState, PartitionState.Transition> input,
                   Expect expect) {
        return new Row(name, before, input, expect);
    }

    // ---- building states and inputs

    /** A follower (its current incarnation, broker epoch 100 + id): its log end, when last caught up, when it last fetched. */
    static FollowerState f(int id, long logEnd, long caughtUpMs, long lastFetchMs) {
        return new FollowerState(id, logEnd, 100 + id, caughtUpMs, lastFetchMs, logEnd);
    }

    /** Broker r's registered epoch: 100 + r. */
    static long registered(int replica) {
        return 100 + replica;
    }

    static PartitionState leader(List<Integer> isr, List<Integer> pending, long logEnd, long hw, long epochStart,
                                 FollowerState... followers) {
        TreeMap<Integer, FollowerState> map = new TreeMap<>();
        for (FollowerState s : followers) {
            map.put(s.replicaId(), s);
        }
        return new PartitionState(1, 5, 7, List.of(1, 2, 3), isr, pending, map, logEnd, hw, epochStart, PartitionState.NEVER, null);
    }

    /** A fetch by {@code replica} with broker epoch {@code brokerEpoch} at leader epoch {@code epoch} from {@code offset}. */
    static Function<PartitionState, PartitionState.Transition> fetch(int replica, long brokerEpoch, int epoch,
                                                                                        long offset) {
        return fetch(replica, brokerEpoch, epoch, offset, -1, null);
    }

    /** ... having last fetched {@code lastEpoch}, which on the leader ends as {@code end} (null: none known). */
    static Function<PartitionState, PartitionState.Transition> fetch(int replica, long brokerEpoch, int epoch,
                                                                                        long offset, int lastEpoch,
                                                                                        EpochEndOffset end) {
        FetchCheck.Fetch fetch = new FetchCheck.Fetch(replica, brokerEpoch, offset, epoch, lastEpoch);
        return s -> s.onFollowerFetch(new PartitionState.FollowerFetch(fetch, 100 + replica, Optional.ofNullable(end), 0), NOW,
            0);
    }

    static Map<Integer, Long> ends(long f2, long f3) {
        return Map.of(2, f2, 3, f3);
    }

    static List<Integer> isr(Integer... ids) {
        return Arrays.asList(ids);
    }

    static Expect expect(long hw, List<Integer> isr, List<Integer> pending, Map<Integer, Long> ends, long advance,
                         List<Integer> proposal, boolean expandNow) {
        return new Expect(hw, isr, pending, ends, advance, proposal, expandNow, false);
    }

    /** The state unchanged, no effects. */
    static Expect same(PartitionState s) {
        return new Expect(s.highWatermark(), s.isr(), s.pendingIsr(), s.followerEndOffsets(), -1, null, false, true);
    }

    static final PartitionState FULL = leader(isr(1, 2, 3), null, 10, 5, 0, f(2, 8, NOW, NOW), f(3, 5, NOW, NOW));
    static final PartitionState TWO = leader(isr(1, 2), null, 10, 4, 0, f(2, 4, NOW, NOW), f(3, 0, 0, 0));
    static final PartitionState NEW_EPOCH = leader(isr(1, 2), null, 10, 4, 10, f(2, 4, NOW, NOW), f(3, -1, NOW, 0));

    static Stream<Row> table() {
        PartitionState.IsrChange shrinkTo12 = new PartitionState.IsrChange(isr(1, 2, 3), isr(1, 2), 5, 7, "shrink");
        PartitionState pendingShrink = leader(isr(1, 2, 3), isr(1, 2), 10, 2, 0, f(2, 10, NOW, NOW), f(3, 2, 0, 0));
        return Stream.of(
            // high watermark: the minimum over the leader and the ISR, never back
            row("HW advances to the slowest ISR member", FULL, fetch(3, 103, 5, 9),
                expect(8, isr(1, 2, 3), null, ends(8, 9), 8, null, false)),
            row("HW stops at the leader's own log end", FULL, fetch(2, 102, 5, 10).andThen(t -> fetch(3, 103, 5, 10).apply(t.state())),
                expect(10, isr(1, 2, 3), null, ends(10, 10), 10, null, false)),
            row("HW over ISR members only: a lagging non-member does not hold it", TWO, fetch(2, 102, 5, 10),
                expect(10, isr(1, 2), null, ends(10, 0), 10, null, false)),
            row("HW never goes back when an ISR member fetches from lower", FULL, fetch(2, 102, 5, 3),
                expect(5, isr(1, 2, 3), null, ends(3, 5), -1, null, false)),
            row("an ISR change in flight counts: its new member holds the HW", pendingExpand(), fetch(2, 102, 5, 10),
                expect(4, isr(1, 2), isr(1, 2, 3), ends(10, 4), -1, null, false)),
            row("local append with a lone ISR commits at once", leader(isr(1), null, 10, 10, 0, f(2, 0, 0, 0), f(3, 0, 0, 0)),
                s -> s.onLocalAppend(15), expect(15, isr(1), null, ends(0, 0), 15, null, false)),
            row("local append with followers waits for them", FULL, s -> s.onLocalAppend(15),
                expect(5, isr(1, 2, 3), null, ends(8, 5), -1, null, false)),
            // which fetches count
            row("stale leader epoch: ignored", FULL, fetch(3, 103, 4, 9), same(FULL)),
            row("newer leader epoch: ignored", FULL, fetch(3, 103, 6, 9), same(FULL)),
            row("no leader epoch named: ignored", FULL, fetch(3, 103, -1, 9), same(FULL)),
            row("unknown replica: ignored", FULL, fetch(9, 109, 5, 9), same(FULL)),
            row("the leader's own id: ignored", FULL, fetch(1, 101, 5, 9), same(FULL)),
            row("stale broker epoch (an earlier incarnation): ignored", FULL, fetch(3, 99, 5, 9), same(FULL)),
            row("diverging follower: its offset is not taken", FULL, fetch(3, 103, 5, 9, 3, new EpochEndOffset(3, 6)), same(FULL)),
            row("last fetched epoch unknown to the leader: not taken", FULL, fetch(3, 103, 5, 9, 6, null), same(FULL)),
            row("last fetched epoch agrees: taken", FULL, fetch(3, 103, 5, 9, 4, new EpochEndOffset(4, 9)),
                expect(8, isr(1, 2, 3), null, ends(8, 9), 8, null, false)),
            // expansion on the fetch path
            row("non-member reaching the HW: expand now", TWO, fetch(3, 103, 5, 6),
                expect(4, isr(1, 2), null, ends(4, 6), -1, null, true)),
            row("non-member below the HW: not yet", TWO, fetch(3, 103, 5, 3),
                expect(4, isr(1, 2), null, ends(4, 3), -1, null, false)),
            row("non-member past the HW but before this epoch's start: not yet", NEW_EPOCH, fetch(3, 103, 5, 7),
                expect(4, isr(1, 2), null, ends(4, 7), -1, null, false)),
            row("non-member at this epoch's start: expand now", NEW_EPOCH, fetch(3, 103, 5, 10),
                expect(4, isr(1, 2), null, ends(4, 10), -1, null, true)),
            row("non-member caught up while a change is in flight: not now", pendingExpand(), fetch(3, 103, 5, 10),
                expect(4, isr(1, 2), isr(1, 2, 3), ends(4, 10), -1, null, false)),
            // the ISR check
            row("shrink a member not caught up for longer than the lag limit",
                leader(isr(1, 2, 3), null, 10, 5, 0, f(2, 10, NOW, NOW), f(3, 5, NOW - LAG_MS - 1, NOW)),
                s -> s.proposeIsrChange(NOW, LAG_MS, PartitionStateTest::registered), expect(5, isr(1, 2, 3), isr(1, 2), ends(10, 5), -1, isr(1, 2), false)),
            row("keep a member lagging exactly the limit",
                leader(isr(1, 2, 3), null, 10, 5, 0, f(2, 10, NOW, NOW), f(3, 5, NOW - LAG_MS, NOW)),
                s -> s.proposeIsrChange(NOW, LAG_MS, PartitionStateTest::registered), expect(5, isr(1, 2, 3), null, ends(10, 5), -1, null, false)),
            row("expand a follower caught up to the HW within this epoch",
                leader(isr(1, 2), null, 10, 10, 10, f(2, 10, NOW, NOW), f(3, 10, NOW, NOW)),
                s -> s.proposeIsrChange(NOW, LAG_MS, PartitionStateTest::registered), expect(10, isr(1, 2), isr(1, 2, 3), ends(10, 10), -1, isr(1, 2, 3), false)),
            row("no expansion on a previous incarnation's log end (the broker restarted: new broker epoch)",
                leader(isr(1, 2), null, 10, 10, 10, f(2, 10, NOW, NOW), f(3, 10, NOW, NOW)),
                s -> s.proposeIsrChange(NOW, LAG_MS, r -> r == 3 ? 204 : registered(r)),
                expect(10, isr(1, 2), null, ends(10, 10), -1, null, false)),
            row("no expansion below the HW",
                leader(isr(1, 2), null, 10, 10, 10, f(2, 10, NOW, NOW), f(3, 9, NOW, NOW)),
                s -> s.proposeIsrChange(NOW, LAG_MS, PartitionStateTest::registered), expect(10, isr(1, 2), null, ends(10, 9), -1, null, false)),
            row("no expansion before this epoch's start, even at the HW",
                leader(isr(1, 2), null, 12, 8, 12, f(2, 8, NOW, NOW), f(3, 8, NOW, NOW)),
                s -> s.proposeIsrChange(NOW, LAG_MS, PartitionStateTest::registered), expect(8, isr(1, 2), null, ends(8, 8), -1, null, false)),
            row("one change in flight at a time", pendingShrink, s -> s.proposeIsrChange(NOW + LAG_MS * 2, LAG_MS, PartitionStateTest::registered),
                same(pendingShrink)),
            // the controller's answer
            row("accepted shrink: the ISR is the committed one and the HW moves past the dropped member", pendingShrink,
                s -> s.onIsrChangeAnswered(shrinkTo12, isr(1, 2), 8, true, NOW),
                expect(10, isr(1, 2), null, ends(10, 2), 10, null, false)),
            row("accepted at a partition epoch not newer: ISR kept, proposal dropped", pendingShrink,
                s -> s.onIsrChangeAnswered(shrinkTo12, isr(1, 2), 7, true, NOW),
                expect(2, isr(1, 2, 3), null, ends(10, 2), -1, null, false)),
            row("refused: ISR kept, proposal dropped", pendingShrink,
                s -> s.onIsrChangeAnswered(shrinkTo12, List.of(), -1, false, NOW),
                expect(2, isr(1, 2, 3), null, ends(10, 2), -1, null, false)),
            row("refused with a newer partition epoch: the controller's ISR is taken", pendingShrink,
                s -> s.onIsrChangeAnswered(shrinkTo12, isr(1, 2), 9, false, NOW),
                expect(10, isr(1, 2), null, ends(10, 2), 10, null, false)),
            row("no answer: the change stays in flight and counted in the HW", pendingExpand(),
                s -> s.onIsrChangeUnanswered(new PartitionState.IsrChange(isr(1, 2), isr(1, 2, 3), 5, 7, "expand"), NOW)
                    .state().onFollowerFetch(new PartitionState.FollowerFetch(new FetchCheck.Fetch(2, 102, 10, 5, -1), 102,
                        Optional.empty(), 0), NOW, 0),
                expect(4, isr(1, 2), isr(1, 2, 3), ends(10, 4), -1, null, false)),
            row("no answer: the next ISR check sends the same change again", pendingExpand(),
                s -> s.onIsrChangeUnanswered(new PartitionState.IsrChange(isr(1, 2), isr(1, 2, 3), 5, 7, "expand"), NOW)
                    .state().proposeIsrChange(NOW + 1, LAG_MS, PartitionStateTest::registered),
                expect(4, isr(1, 2), isr(1, 2, 3), ends(4, 4), -1, isr(1, 2, 3), false)),
            row("an answer to another change: ignored", pendingShrink,
                s -> s.onIsrChangeAnswered(new PartitionState.IsrChange(isr(1, 2, 3), isr(1, 3), 5, 7, "x"), isr(1, 3), 8, true,
                    NOW), same(pendingShrink)),
            // metadata
            row("refresh in the same epoch keeps what the leader knows of its followers and drops the change in flight",
                pendingShrink, s -> s.refresh(9, List.of(1, 2, 3), isr(1, 2), NOW),
                expect(10, isr(1, 2), null, ends(10, 2), 10, null, false)),
            row("metadata at a partition epoch the leader already has (from an ISR answer) keeps the change in flight",
                pendingShrink, s -> s.refresh(7, List.of(1, 2, 3), isr(1, 2, 3), NOW), same(pendingShrink)));
    }

    static PartitionState pendingExpand() {
        return leader(isr(1, 2), isr(1, 2, 3), 10, 4, 0, f(2, 4, NOW, NOW), f(3, 4, NOW, NOW));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void decides(Row row) {
        PartitionState.Transition t = row.input().apply(row.before());
        PartitionState s = t.state();
        Expect e = row.expect();
        assertThat(s.highWatermark()).as("high watermark").isEqualTo(e.highWatermark());
        assertThat(s.isr()).as("ISR").isEqualTo(e.isr());
        assertThat(s.pendingIsr()).as("ISR in flight").isEqualTo(e.pendingIsr());
        assertThat(s.followerEndOffsets()).as("follower log ends").isEqualTo(e.followerEnds());
        assertThat(t.effects().advanceHighWatermarkTo()).as("effect: advance HW to").isEqualTo(e.advanceHighWatermarkTo());
        assertThat(t.effects().proposal() == null ? null : t.effects().proposal().newIsr()).as("effect: propose ISR")
            .isEqualTo(e.proposal());
        assertThat(t.effects().expandNow()).as("effect: ISR check now").isEqualTo(e.expandNow());
        if (e.unchanged()) {
            assertThat(s).as("nothing changed").isEqualTo(row.before());
        }
    }

    @Test
    void becomingLeaderStartsFromTheKnownHighWatermarkAtMostTheLogEnd() {
        PartitionState.Transition t = PartitionState.becomeLeader(1, 5, 7, List.of(1, 2, 3), isr(1, 2, 3), 10, 10, 20, NOW);
        assertThat(t.state().highWatermark()).isEqualTo(10);
        assertThat(t.effects()).isEqualTo(PartitionState.Effects.NONE);
        assertThat(t.state().followerEndOffsets()).isEqualTo(ends(-1, -1));
        assertThat(t.state().epochStartOffset()).isEqualTo(10);

        t = PartitionState.becomeLeader(1, 5, 7, List.of(1, 2, 3), isr(1, 2, 3), 10, 10, 4, NOW);
        assertThat(t.state().highWatermark()).as("followers not heard from hold the HW").isEqualTo(4);

        t = PartitionState.becomeLeader(1, 5, 7, List.of(1, 2, 3), isr(1), 10, 10, 4, NOW);
        assertThat(t.state().highWatermark()).as("a lone ISR commits its whole log").isEqualTo(10);
        assertThat(t.effects().advanceHighWatermarkTo()).isEqualTo(10);
    }

    @Test
    void minIsrAdmitsAcksAllOnlyWithEnoughMembers() {
        Object[][] table = {
            {isr(1), 1, true},
            {isr(1), 2, false},
            {isr(1, 2), 2, true},
            {isr(1, 2, 3), 2, true},
            {isr(1, 2), 3, false},
        };
        for (Object[] r : table) {
            @SuppressWarnings("unchecked")
            List<Integer> members = (List<Integer>) r[0];
            PartitionState s = leader(members, null, 10, 10, 0, f(2, 10, NOW, NOW), f(3, 10, NOW, NOW));
            assertThat(s.admitsAcksAll((int) r[1])).as("ISR %s, min.insync.replicas %s", r[0], r[1]).isEqualTo(r[2]);
        }
    }

    @Test
    void aRefusalHoldsBackTheNextExpansionUntilTheFollowerFetchesAgain() {
        PartitionState s = leader(isr(1, 2), null, 10, 10, 0, f(2, 10, NOW, NOW), f(3, 10, NOW, NOW));
        PartitionState.Transition proposed = s.proposeIsrChange(NOW, LAG_MS, PartitionStateTest::registered);
        assertThat(proposed.effects().proposal().newIsr()).isEqualTo(isr(1, 2, 3));
        s = proposed.state().onIsrChangeAnswered(proposed.effects().proposal(), List.of(), -1, false, NOW + 1).state();
        assertThat(s.isrRefusedAtMs()).isEqualTo(NOW + 1);
        assertThat(s.proposeIsrChange(NOW + 2, LAG_MS, PartitionStateTest::registered).effects().proposal()).as("no fetch since the refusal").isNull();
        FetchCheck.Fetch fetch = new FetchCheck.Fetch(3, 103, 10, 5, -1);
        PartitionState.Transition fetched = s.onFollowerFetch(new PartitionState.FollowerFetch(fetch, 103, Optional.empty(), 0),
            NOW + 3, 100);
        assertThat(fetched.effects().expandNow()).as("within the refusal backoff").isFalse();
        assertThat(fetched.state().proposeIsrChange(NOW + 4, LAG_MS, PartitionStateTest::registered).effects().proposal().newIsr()).isEqualTo(isr(1, 2, 3));
    }

    @Test
    void caughtUpTimeFollowsKafkasRule() {
        FollowerState s = FollowerState.initial(2, 1_000);
        s = s.onFetch(4, 7, 10, 2_000);
        assertThat(s.lastCaughtUpTimeMs()).as("behind now, and nothing known of the leader at its previous fetch")
            .isEqualTo(1_000);
        s = s.onFetch(10, 7, 10, 3_000);
        assertThat(s.lastCaughtUpTimeMs()).as("at the leader's end: caught up now").isEqualTo(3_000);
        s = s.onFetch(10, 7, 15, 4_000);
        assertThat(s.lastCaughtUpTimeMs()).as("reached the leader's end as of its previous fetch: caught up then")
            .isEqualTo(3_000);
        s = s.onFetch(12, 7, 20, 5_000);
        assertThat(s.lastCaughtUpTimeMs()).as("not even where the leader was at the previous fetch").isEqualTo(3_000);
        s = s.onFetch(20, 7, 20, 6_000);
        assertThat(s.lastCaughtUpTimeMs()).isEqualTo(6_000);
    }
}
