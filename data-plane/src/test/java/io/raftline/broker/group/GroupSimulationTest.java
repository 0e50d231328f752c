package io.raftline.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.group.DescribeGroupsRequest;
import io.raftline.protocol.group.DescribeGroupsResponse;
import io.raftline.protocol.group.JoinGroupResponse;
import io.raftline.protocol.group.SyncGroupResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A seeded simulation: members join, heartbeat, sync, commit, leave, crash and come back while time jumps and the
 * coordinator moves to another broker now and then. After every event: no acknowledged commit is lost or goes
 * backwards, a stored (Stable or Empty) generation never goes back, and members whose commits the coordinator would accept never
 * own the same partition. The 60 simulation seeds come from a fixed QuickTheories seed; a failure names the simulation
 * seed and the step, and {@code simulate(seed)} replays it.
 */
class GroupSimulationTest {

    private static final String G = "sim";
    private static final int PARTITIONS = 6;
    private static final int P = OffsetsTopic.partitionFor(G, CoordinatorHarness.PARTITIONS);

    /** A member as a client would drive it. */
    private static final class SimMember {
        String memberId = "";
        int generation = -1;
        boolean alive = true;
        CompletableFuture<JoinGroupResponse> join;
        CompletableFuture<SyncGroupResponse> sync;
        List<Integer> owned = List.of();
        boolean stable;

        void reset() {
            memberId = "";
            generation = -1;
            join = null;
            sync = null;
            owned = List.of();
            stable = false;
        }
    }

    private final long[] acked = new long[PARTITIONS];
    private final long[] attempted = new long[PARTITIONS];
    private CoordinatorHarness h;
    private GroupCoordinator c;
    private int epoch = 1;
    private int lastGeneration;

    @Test
    void invariantsHoldAfterEveryEvent() {
        // A simulation seed does not get simpler by shrinking (a smaller seed is just another simulation), so no shrinking:
        // the report gives the first falsifying seed, and the failure message the step.
        qt().withFixedSeed(60L).withExamples(60).withShrinkCycles(0).forAll(longs().all()).checkAssert(this::simulate);
    }

    /** 400 random events from this seed, with the invariants checked after each. */
    void simulate(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        java.util.Arrays.fill(acked, 0);
        java.util.Arrays.fill(attempted, 0);
        epoch = 1;
        lastGeneration = 0;
        h = new CoordinatorHarness(r.nextInt(2) * 1000);
        c = h.newCoordinator(1, seed);
        c.onBecomeLeader(P, epoch);
        h.runLoads();
        List<SimMember> members = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            members.add(new SimMember());
        }
        for (int step = 0; step < 400; step++) {
            try {
                int dice = r.nextInt(100);
                SimMember m = members.get(r.nextInt(members.size()));
                if (dice < 20) {
                    h.advance(r.nextInt(1, 4000));
                } else if (dice < 75) {
                    act(m, r);
                } else if (dice < 88) {
                    commit(m, r);
                } else if (dice < 92) {
                    m.alive = false; // crashed: silent from now on
                } else if (dice < 95) {
                    if (!m.alive || m.memberId.isEmpty()) {
                        m.reset();
                        m.alive = true;
                    } else {
                        CoordinatorHarness.leave(c, G, m.memberId);
                        m.reset();
                    }
                } else if (dice < 97) {
                    moveCoordinator(seed + step);
                } else {
                    c.expireOffsets();
                }
                checkInvariants(members);
            } catch (AssertionError e) {
                throw new AssertionError("simulation seed " + seed + ", step " + step + ": " + e.getMessage(), e);
            }
        }
    }

    private void act(SimMember m, SplittableRandom r) {
        if (!m.alive) {
            return;
        }
        if (m.join != null) {
            if (!m.join.isDone()) {
                return;
            }
            JoinGroupResponse j = m.join.join();
            m.join = null;
            switch (j.getError().getCode()) {
                case NONE -> {
                    m.generation = j.getGenerationId();
                    m.memberId = j.getMemberId();
                    Map<String, String> plan = new LinkedHashMap<>();
                    if (j.getLeader().equals(j.getMemberId())) {
                        List<String> ids = j.getMembersList().stream().map(JoinGroupResponse.Member::getMemberId).toList();
                        for (int p = 0; p < PARTITIONS; p++) {
                            plan.merge(ids.get(p % ids.size()), String.valueOf(p), (a, b) -> a + "," + b);
                        }
                    }
                    m.sync = CoordinatorHarness.sync(c, G, m.generation, m.memberId, plan);
                }
                case MEMBER_ID_REQUIRED -> {
                    m.memberId = j.getMemberId();
                    m.join = CoordinatorHarness.rejoin(c, G, m.memberId);
                }
                case UNKNOWN_MEMBER_ID -> m.reset();
                default -> m.join = CoordinatorHarness.rejoin(c, G, m.memberId);
            }
            return;
        }
        if (m.sync != null) {
            if (!m.sync.isDone()) {
                return;
            }
            SyncGroupResponse s = m.sync.join();
            m.sync = null;
            if (s.getError().getCode() == ErrorCode.NONE) {
                String a = s.getAssignment().toString(StandardCharsets.UTF_8);
                m.owned = a.isEmpty() ? List.of() : java.util.Arrays.stream(a.split(",")).map(Integer::valueOf).toList();
                m.stable = true;
            } else if (s.getError().getCode() == ErrorCode.UNKNOWN_MEMBER_ID) {
                m.reset();
            } else {
                m.stable = false;
                m.join = CoordinatorHarness.rejoin(c, G, m.memberId);
            }
            return;
        }
        if (!m.stable) {
            m.join = m.memberId.isEmpty()
                ? c.joinGroup(CoordinatorHarness.joinRequest(G, ""), "h") : CoordinatorHarness.rejoin(c, G, m.memberId);
            return;
        }
        ErrorCode hb = CoordinatorHarness.heartbeat(c, G, m.generation, m.memberId);
        switch (hb) {
            case NONE -> {
            }
            case REBALANCE_IN_PROGRESS -> {
                m.stable = false;
                m.join = CoordinatorHarness.rejoin(c, G, m.memberId);
            }
            case ILLEGAL_GENERATION -> {
                m.stable = false;
                m.owned = List.of();
                m.join = CoordinatorHarness.rejoin(c, G, m.memberId);
            }
            default -> m.reset();
        }
    }

    private void commit(SimMember m, SplittableRandom r) {
        if (!m.alive || !m.stable || m.owned.isEmpty()) {
            return;
        }
        int p = m.owned.get(r.nextInt(m.owned.size()));
        long offset = ++attempted[p];
        var resp = CoordinatorHarness.commit(c, G, m.generation, m.memberId, "t", p, offset);
        if (resp.isDone() && CoordinatorHarness.commitError(resp.join()) == ErrorCode.NONE) {
            acked[p] = Math.max(acked[p], offset);
        } else if (resp.isDone()) {
            ErrorCode e = CoordinatorHarness.commitError(resp.join());
            assertThat(e).isIn(ErrorCode.ILLEGAL_GENERATION, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.REBALANCE_IN_PROGRESS);
            attempted[p]--; // refused before anything was written: the next attempt may reuse the offset
        }
    }

    private void moveCoordinator(long seed) {
        c.onResign(P);
        c.shutdown();
        c = h.newCoordinator(2, seed);
        c.onBecomeLeader(P, ++epoch);
        assertThat(CoordinatorHarness.fetchError(c, G)).isEqualTo(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
        h.runLoads();
    }

    private void checkInvariants(List<SimMember> members) {
        for (int p = 0; p < PARTITIONS; p++) {
            long committed = CoordinatorHarness.fetch(c, G, "t", p);
            assertThat(committed).as("partition %d: acknowledged %d", p, acked[p]).isGreaterThanOrEqualTo(acked[p] == 0 ? -1 : acked[p]);
            assertThat(committed).isLessThanOrEqualTo(attempted[p] == 0 ? -1 : attempted[p]);
        }
        DescribeGroupsResponse.Group d = c.describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds(G).build()).getGroups(0);
        if (d.getError().getCode() != ErrorCode.NONE) {
            return;
        }
        // A generation is stored once it is Stable or Empty; one that never got there may be reused after a move
        // (as in Kafka), but a stored one never goes back.
        assertThat(d.getGenerationId()).as("generation").isGreaterThanOrEqualTo(lastGeneration);
        if (d.getState().equals("Stable") || d.getState().equals("Empty")) {
            lastGeneration = d.getGenerationId();
        }
        Set<String> inGroup = new HashSet<>();
        d.getMembersList().forEach(x -> inGroup.add(x.getMemberId()));
        boolean commitsAccepted = d.getState().equals("Stable") || d.getState().equals("PreparingRebalance");
        if (commitsAccepted) {
            Map<Integer, String> owner = new HashMap<>();
            for (SimMember m : members) {
                if (m.stable && m.generation == d.getGenerationId() && inGroup.contains(m.memberId)) {
                    for (int p : m.owned) {
                        String before = owner.put(p, m.memberId);
                        assertThat(before).as("partition %d owned by %s and %s in generation %d", p, before, m.memberId,
                            d.getGenerationId()).isNull();
                    }
                }
            }
        }
    }
}
