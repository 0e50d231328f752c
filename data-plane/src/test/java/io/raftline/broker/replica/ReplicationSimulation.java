package io.raftline.broker.replica;

import io.raftline.broker.log.EpochEndOffset;
import io.raftline.broker.log.LeaderEpochCache;
import io.raftline.broker.log.LeaderEpochCache.EpochEntry;
import io.raftline.common.ManualTime;
import io.raftline.metadata.controller.Controller;
import io.raftline.metadata.controller.ControllerConfig;
import io.raftline.metadata.controller.ControllerResult;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.AlterPartitionRequest;
import io.raftline.protocol.controller.AlterPartitionResponse;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.RegisterBrokerRequest;
import io.raftline.protocol.controller.RegisterBrokerResponse;
import io.raftline.protocol.metadata.Endpoint;
import io.raftline.protocol.metadata.MetadataRecord;
import com.google.protobuf.ByteString;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A deterministic simulation of one partition replicated on three brokers, in the spirit of Kafka's
 * {@code RaftEventSimulationTest} and TigerBeetle's VOPR: everything random comes from one {@link SplittableRandom}
 * seeded with one {@code long}, and time is a {@link ManualTime} stepped by the simulation, so a seed replays exactly.
 *
 * <p>What runs is production code wherever a decision is made: the leader's {@link PartitionState} (high watermark,
 * ISR, followers), {@link FetchCheck} (the leader's answer to a fetch), {@link FollowerDecisions} (stale answers,
 * divergence truncation, out of range, the follower's high watermark), {@link LeaderEpochCache}'s epoch rules on
 * in-memory logs, and the real {@link Controller} (registration, heartbeats, fencing, elections from the ISR,
 * AlterPartition, preferred-leader balancing) over real metadata images. The glue around them (this class) plays
 * {@code Partition}, {@code ReplicaFetcher}, {@code ReplicaManager} and the quorum: it holds the logs, the produce
 * waiters and the messages.
 *
 * <p>Faults: the network delays (mostly milliseconds, sometimes seconds), reorders (every message has its own
 * latency), drops and partitions (one node cut off from all others) fetch requests and answers, heartbeats, ISR
 * change proposals and their answers (these in order, as on the controller channel), and metadata pushes; a
 * leader holds a follower's fetch with nothing to read for up to {@value #MAX_WAIT_MS} ms, as FetchManager does; brokers crash and restart (a new incarnation), some
 * crashes lose what was not flushed. The fault budget is what replication without fsync is meant to survive: a
 * crash loses data only when it is the only fault (every other broker up, no node cut off, no ISR change in
 * flight) and every committed
 * record is also held by another ISR member, and until a replica that
 * lost data has registered again and is out of the ISR (the controller cannot know it lost anything, and its
 * leader may still count the fetches it made before the crash) no other broker crashes or is cut off, since that
 * could leave it the last ISR member and so the leader; surviving that is the durability policy's
 * question (issue 20 item 7, KIP-966), not the replication decisions'. Producers write acks=all (acknowledged once the high watermark passes with the ISR at
 * min.insync.replicas) and acks=1.
 *
 * <p>Invariants, checked after every event: (1) at most one broker appends as leader in any leader epoch; (2) the
 * high watermark of a broker never goes back while it leads, nor when it becomes leader; (3) every acknowledged
 * acks=all record is in each new leader's log, unchanged, and in the final leader's; (4) replicas agree on every
 * offset below their high watermark (the first record seen committed at an offset is the only one ever allowed
 * there); (5) no replica truncates below its own high watermark.
 */
final class ReplicationSimulation {

    /** Where an epoch starts when a broker becomes leader (production: the log records it, as Partition.makeLeader). */
    @FunctionalInterface
    interface EpochStart {
        long onBecomeLeader(SimLog log, int leaderEpoch);
    }

    /** Whether a fetch answer applies to the follower's current state (production: FollowerDecisions). */
    @FunctionalInterface
    interface StaleAnswerRule {
        boolean applies(int sentEpoch, long sentOffset, int leaderEpoch, long logEnd);
    }

    /** What a leader does when an ISR change gets no answer (production: PartitionState.onIsrChangeUnanswered). */
    @FunctionalInterface
    interface NoAnswerRule {
        PartitionState.Transition onNoAnswer(PartitionState state, PartitionState.IsrChange change, long nowMs);
    }


    /**
     * The decisions the simulation runs. {@link #production()} everywhere; a test passes mutated copies of one of
     * them to show the invariants catch it.
     *
     * @param followerUpdate the rule deciding whether a fetch moves the leader's follower state (FetchCheck.decide)
     */
    record Decisions(String name, FetchCheck.Rule followerUpdate, EpochStart epochStart, StaleAnswerRule staleAnswer,
                     NoAnswerRule noAnswer) {
        static Decisions production() {
            return new Decisions("production", FetchCheck::decide, SimLog::assignEpochStartOffset,
                FollowerDecisions::answersCurrentState, PartitionState::onIsrChangeUnanswered);
        }

        Decisions withFollowerUpdate(String mutant, FetchCheck.Rule rule) {
            return new Decisions(mutant, rule, epochStart, staleAnswer, noAnswer);
        }

        Decisions withEpochStart(String mutant, EpochStart rule) {
            return new Decisions(mutant, followerUpdate, rule, staleAnswer, noAnswer);
        }

        Decisions withStaleAnswer(String mutant, StaleAnswerRule rule) {
            return new Decisions(mutant, followerUpdate, epochStart, rule, noAnswer);
        }

        Decisions withNoAnswer(String mutant, NoAnswerRule rule) {
            return new Decisions(mutant, followerUpdate, epochStart, staleAnswer, rule);
        }

    }

    /** A run's outcome: the first invariant broken (null if none) and what happened, for the statistics. */
    record Result(long seed, String violation, Stats stats) {
        boolean failed() {
            return violation != null;
        }
    }

    /** Counts of what a run did, so a test can check the runs are not vacuous. */
    static final class Stats {
        long steps;
        long acked;
        long leaderChanges;
        long truncations;
        long crashes;
        long powerLosses;
        long isrChanges;
        long staleAnswersDropped;

        void add(Stats o) {
            steps += o.steps;
            acked += o.acked;
            leaderChanges += o.leaderChanges;
            truncations += o.truncations;
            crashes += o.crashes;
            powerLosses += o.powerLosses;
            isrChanges += o.isrChanges;
            staleAnswersDropped += o.staleAnswersDropped;
        }

        @Override
        public String toString() {
            return "steps " + steps + ", acked " + acked + ", leader changes " + leaderChanges + ", truncations " + truncations
                + ", crashes " + crashes + " (" + powerLosses + " losing unflushed data), ISR changes " + isrChanges
                + ", stale answers dropped " + staleAnswersDropped;
        }
    }

    /** One record: the leader epoch it was written in and a value unique in the run. */
    record Rec(int epoch, long value) {
    }

    /** An in-memory log: records from offset 0, the leader-epoch entries (production's rules), a flushed prefix. */
    static final class SimLog {
        final List<Rec> records = new ArrayList<>();
        List<EpochEntry> epochs = List.of();
        long flushed;

        long logEnd() {
            return records.size();
        }

        int latestEpoch() {
            return epochs.isEmpty() ? -1 : epochs.get(epochs.size() - 1).epoch();
        }

        Optional<EpochEndOffset> endOffsetForEpoch(int epoch) {
            return LeaderEpochCache.endOffsetFor(epochs, epoch, logEnd());
        }

        /** As {@code Log.assignEpochStartOffset}: this epoch starts at the log end (ignored if not above the latest). */
        long assignEpochStartOffset(int epoch) {
            epochs = LeaderEpochCache.assigned(epochs, epoch, logEnd());
            return logEnd();
        }

        long appendAsLeader(int epoch, long value) {
            epochs = LeaderEpochCache.assigned(epochs, epoch, logEnd());
            records.add(new Rec(epoch, value));
            return logEnd() - 1;
        }

        /** As {@code Log.appendAsFollower}: refused unless at the log end; the epochs learn every new epoch. */
        boolean appendAsFollower(List<Rec> batch, long fetchOffset) {
            if (fetchOffset != logEnd()) {
                return false;
            }
            for (Rec r : batch) {
                epochs = LeaderEpochCache.assigned(epochs, r.epoch(), logEnd());
                records.add(r);
            }
            return true;
        }

        /** As {@code Log.truncateTo}: at or past the end only an epoch without records at the end goes. */
        void truncateTo(long offset) {
            if (offset >= logEnd()) {
                epochs = epochs.stream().filter(e -> e.startOffset() < logEnd()).toList();
                return;
            }
            records.subList((int) offset, records.size()).clear();
            epochs = epochs.stream().filter(e -> e.startOffset() < offset).toList();
            flushed = Math.min(flushed, offset);
        }

        Rec at(long offset) {
            return offset < logEnd() ? records.get((int) offset) : null;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Messages

    private static final boolean DEBUG = Boolean.getBoolean("sim.debug");
    private static final int CONTROLLER = 0;
    private static final String TOPIC = "t";
    private static final int MIN_ISR = 2;
    private static final long LAG_MS = 1_000;
    private static final long ISR_CHECK_MS = 500;
    private static final long HEARTBEAT_MS = 250;
    private static final long FETCH_TIMEOUT_MS = 5_000;
    private static final long ALTER_TIMEOUT_MS = 2_000;
    private static final long MAX_WAIT_MS = 500;

    private sealed interface Payload {
    }

    private record FetchReq(long session, long requestId, FetchCheck.Fetch fetch) implements Payload {
    }

    /** A fetch answer; {@code sentEpoch}/{@code sentOffset} echo the request, as the follower remembers it. */
    private record FetchResp(long session, long requestId, int sentEpoch, long sentOffset, ErrorCode error, int divergingEpoch,
                             long divergingEndOffset, List<Rec> records, long highWatermark, long logEnd) implements Payload {
    }

    private record Heartbeat(long brokerEpoch, long metadataOffset) implements Payload {
    }

    private record Alter(PartitionState.IsrChange change, AlterPartitionRequest request) implements Payload {
    }

    private record AlterAnswer(PartitionState.IsrChange change, AlterPartitionResponse response) implements Payload {
    }

    private record MetadataPush(MetadataImage image) implements Payload {
    }

    private record Message(long deliverAtMs, long seq, int from, int to, Payload payload) {
    }

    // ---------------------------------------------------------------------------------------------------------
    // Brokers (the glue of Partition, ReplicaFetcher and ReplicaManager around the decisions)

    private record Waiter(long offset, Rec rec, int minIsr) {
    }

    private record Parked(int from, FetchReq req, long untilMs) {
    }

    /** Completes the parked fetches: all of them after an append, the expired ones otherwise. */
    private void completeParked(Broker b, boolean appended) {
        if (b.parked.isEmpty()) {
            return;
        }
        List<Parked> all = b.parked;
        b.parked = new ArrayList<>();
        for (Parked p : all) {
            if (appended || time.milliseconds() >= p.untilMs()) {
                b.onFetch(p.from(), p.req(), 0);
            } else {
                b.parked.add(p);
            }
        }
    }

    private static final class FetchSlot {
        long session;
        long outstanding = -1;
        long sentAtMs;
    }

    private final class Broker {
        final int id;
        boolean up = true;
        int incarnation;
        long brokerEpoch = -1;
        MetadataImage image = MetadataImage.EMPTY;
        final SimLog log = new SimLog();
        long hw;
        boolean leader;
        int leaderEpoch = -1;
        int leaderId = -1;
        PartitionState state;
        final List<Waiter> waiters = new ArrayList<>();
        /** Follower fetches waiting for data. */
        List<Parked> parked = new ArrayList<>();
        final Map<Integer, FetchSlot> fetchers = new HashMap<>();
        long nextRequestId;
        long nextHeartbeatMs;
        long nextIsrCheckMs;
        Alter alterInFlight;
        long alterSentMs;
        /**
         * Lost its unflushed data and has not registered again since, or is still in the ISR: the controller cannot
         * know, and the leader may count fetches this incarnation made before the crash. See the fault budget.
         */
        boolean lostData;
        /** Records below this were checked against the committed ones (invariant 4). */
        long checkedBelow;
        /** The high watermark at the last check while leader, -1 when not leading then (invariant 2). */
        long leaderHwSeen = -1;

        Broker(int id) {
            this.id = id;
        }

        void applyImage(MetadataImage img) {
            if (!up || img.index() <= image.index()) {
                return;
            }
            PartitionRegistration before = image.topic(TOPIC).map(t -> t.partition(0)).orElse(null);
            image = img;
            PartitionRegistration reg = img.topic(TOPIC).map(t -> t.partition(0)).orElse(null);
            // As ReplicaManager.applyDelta: only a changed registration changes the role.
            if (reg == null || !reg.replicas().contains(id) || reg.equals(before)) {
                return;
            }
            if (reg.leader() == id) {
                makeLeader(reg);
            } else {
                makeFollower(reg);
            }
        }

        void makeLeader(PartitionRegistration reg) {
            boolean newEpoch = !leader || reg.leaderEpoch() != leaderEpoch || state == null;
            PartitionState.Transition t;
            if (newEpoch) {
                long before = hw;
                leaderEpoch = reg.leaderEpoch();
                leaderId = id;
                leader = true;
                long start = decisions.epochStart().onBecomeLeader(log, leaderEpoch);
                t = PartitionState.becomeLeader(id, leaderEpoch, reg.partitionEpoch(), reg.replicas(), reg.isr(), log.logEnd(),
                    start, hw, time.milliseconds());
                stats.leaderChanges++;
                trace("broker " + id + " leads epoch " + leaderEpoch + " isr " + reg.isr() + " log end " + log.logEnd());
                if (t.state().highWatermark() < before) {
                    violation("HW of broker " + id + " went back from " + before + " to " + t.state().highWatermark()
                        + " as it became leader of epoch " + leaderEpoch);
                }
                checkHoldsAcked(this, "new leader " + id + " of epoch " + leaderEpoch);
            } else {
                t = state.refresh(reg.partitionEpoch(), reg.replicas(), reg.isr(), time.milliseconds());
            }
            apply(t);
            waiters.removeIf(w -> state.isr().size() < w.minIsr());
        }

        void makeFollower(PartitionRegistration reg) {
            leader = false;
            state = null;
            leaderEpoch = reg.leaderEpoch();
            leaderId = reg.leader();
            hw = Math.min(hw, log.logEnd());
            waiters.clear();
            alterInFlight = null;
        }

        void apply(PartitionState.Transition t) {
            state = t.state();
            if (DEBUG && state.highWatermark() != hw) {
                trace("broker " + id + " HW " + hw + " -> " + state.highWatermark() + " isr " + state.isr() + " pending "
                    + state.pendingIsr() + " followers " + state.followerEndOffsets() + " log end " + log.logEnd());
            }
            hw = state.highWatermark();
            if (t.effects().advancedHighWatermark()) {
                List<Waiter> done = new ArrayList<>();
                waiters.removeIf(w -> {
                    if (w.offset() < hw) {
                        done.add(w);
                        return true;
                    }
                    return false;
                });
                for (Waiter w : done) {
                    if (state.isr().size() >= w.minIsr()) {
                        acknowledge(w.offset(), w.rec());
                    }
                }
            }
            if (t.effects().expandNow()) {
                isrCheck();
            }
        }

        void produce(boolean acksAll) {
            if (!leader || state == null) {
                return;
            }
            if (acksAll && !state.admitsAcksAll(MIN_ISR)) {
                return;
            }
            long value = nextValue++;
            long offset = log.appendAsLeader(leaderEpoch, value);
            Rec rec = log.at(offset);
            Integer other = appendedInEpoch.putIfAbsent(leaderEpoch, id);
            if (other != null && other != id) {
                violation("brokers " + other + " and " + id + " both appended as leader in epoch " + leaderEpoch);
            }
            apply(state.onLocalAppend(log.logEnd()));
            completeParked(this, true);
            if (acksAll) {
                if (hw > offset) {
                    acknowledge(offset, rec);
                } else {
                    waiters.add(new Waiter(offset, rec, MIN_ISR));
                }
            }
        }

        void isrCheck() {
            if (!leader || state == null) {
                return;
            }
            PartitionState.Transition t = state.proposeIsrChange(time.milliseconds(), LAG_MS,
                r -> image.broker(r).map(b -> b.epoch()).orElse(-1L));
            state = t.state();
            PartitionState.IsrChange change = t.effects().proposal();
            if (change == null) {
                return;
            }
            TopicImage topic = image.topic(TOPIC).orElseThrow();
            AlterPartitionRequest req = AlterPartitionRequest.newBuilder().setBrokerId(id).setBrokerEpoch(brokerEpoch)
                .addPartitions(AlterPartitionRequest.PartitionIsr.newBuilder()
                    .setTopicId(ByteString.copyFrom(topic.id().bytes())).setPartition(0)
                    .setLeaderEpoch(change.leaderEpoch()).setPartitionEpoch(change.partitionEpoch()).addAllNewIsr(change.newIsr())
                    .addAllNewIsrBrokerEpochs(change.newIsrBrokerEpochs()))
                .build();
            alterInFlight = new Alter(change, req);
            trace("broker " + id + " proposes ISR " + change.newIsr() + " (" + change.reason() + ")");
            alterSentMs = time.milliseconds();
            send(id, CONTROLLER, alterInFlight);
        }

        /** As ReplicaManager.sendIsrChange's answer handler. */
        void onAlterAnswer(AlterAnswer answer) {
            if (alterInFlight == null || alterInFlight.change() != answer.change()) {
                return;
            }
            alterInFlight = null;
            if (!leader || state == null) {
                return;
            }
            AlterPartitionResponse response = answer.response();
            if (response.getPartitionsCount() == 0) {
                apply(state.onIsrChangeAnswered(answer.change(), List.of(), -1, false, time.milliseconds()));
                return;
            }
            AlterPartitionResponse.PartitionResult result = response.getPartitions(0);
            boolean ok = result.getError().getCode() == ErrorCode.NONE;
            trace("broker " + id + " hears ISR " + change(answer) + ": " + result.getError().getCode() + " " + result.getIsrList()
                + " at partition epoch " + result.getPartitionEpoch());
            apply(state.onIsrChangeAnswered(answer.change(), result.getIsrList(), result.getPartitionEpoch(), ok,
                time.milliseconds()));
            waiters.removeIf(w -> state.isr().size() < w.minIsr());
            if (ok) {
                stats.isrChanges++;
            }
        }

        void alterTimedOut() {
            if (alterInFlight != null && time.milliseconds() - alterSentMs >= ALTER_TIMEOUT_MS) {
                PartitionState.IsrChange change = alterInFlight.change();
                alterInFlight = null;
                trace("broker " + id + " gets no answer to ISR " + change.newIsr());
                if (leader && state != null) {
                    apply(decisions.noAnswer().onNoAnswer(state, change, time.milliseconds()));
                }
            }
        }

        void maybeFetch() {
            if (leader || leaderId < 0 || leaderId == id) {
                return;
            }
            FetchSlot slot = fetchers.computeIfAbsent(leaderId, k -> new FetchSlot());
            long now = time.milliseconds();
            if (slot.outstanding >= 0) {
                if (now - slot.sentAtMs < FETCH_TIMEOUT_MS) {
                    return;
                }
                slot.session++; // the stream is torn down: its answers are gone
            }
            slot.outstanding = nextRequestId++;
            slot.sentAtMs = now;
            FetchCheck.Fetch fetch = new FetchCheck.Fetch(id, brokerEpoch, log.logEnd(), leaderEpoch, log.latestEpoch());
            send(id, leaderId, new FetchReq(slot.session, slot.outstanding, fetch));
        }

        /**
         * The leader's side of a fetch: Partition.updateFollowerFetchState, then Partition.read; a follower's fetch
         * with nothing to read waits (FetchManager's purgatory) for an append or {@link #MAX_WAIT_MS}.
         */
        void onFetch(int from, FetchReq req) {
            onFetch(from, req, time.milliseconds() + MAX_WAIT_MS);
        }

        void onFetch(int from, FetchReq req, long waitUntilMs) {
            FetchCheck.Fetch fetch = req.fetch();
            if (!leader || state == null) {
                send(id, from, new FetchResp(req.session(), req.requestId(), fetch.currentLeaderEpoch(), fetch.fetchOffset(),
                    ErrorCode.NOT_LEADER, -1, -1, List.of(), -1, -1));
                return;
            }
            long registered = image.broker(fetch.replicaId()).map(b -> b.epoch()).orElse(-1L);
            Optional<EpochEndOffset> end = fetch.lastFetchedEpoch() >= 0 ? log.endOffsetForEpoch(fetch.lastFetchedEpoch())
                : Optional.empty();
            apply(state.onFollowerFetch(new PartitionState.FollowerFetch(fetch, registered, end, 0), time.milliseconds(),
                ISR_CHECK_MS, decisions.followerUpdate()));
            FetchCheck.Outcome outcome = FetchCheck.decide(fetch,
                new FetchCheck.Leader(id, leaderEpoch, state.replicas(), 0, log.logEnd()), registered, end);
            List<Rec> records = List.of();
            if (outcome.read() && fetch.fetchOffset() == log.logEnd() && time.milliseconds() < waitUntilMs) {
                parked.add(new Parked(from, req, waitUntilMs));
                return;
            }
            if (outcome.read() && fetch.fetchOffset() < log.logEnd()) {
                long upTo = Math.min(log.logEnd(), fetch.fetchOffset() + 1 + random.nextInt(8));
                records = List.copyOf(log.records.subList((int) fetch.fetchOffset(), (int) upTo));
            }
            send(id, from, new FetchResp(req.session(), req.requestId(), fetch.currentLeaderEpoch(), fetch.fetchOffset(),
                outcome.error(), outcome.divergingEpoch(), outcome.divergingEndOffset(), records, hw, log.logEnd()));
        }

        /** The follower's side: ReplicaFetcher.apply, Partition.appendAsFollower and truncateTo. */
        void onFetchAnswer(int from, FetchResp resp) {
            FetchSlot slot = fetchers.get(from);
            if (slot == null || slot.session != resp.session() || slot.outstanding != resp.requestId()) {
                return;
            }
            slot.outstanding = -1;
            if (leader || leaderId != from) {
                return; // the partition is not on this fetcher now
            }
            if (!decisions.staleAnswer().applies(resp.sentEpoch(), resp.sentOffset(), leaderEpoch, log.logEnd())) {
                stats.staleAnswersDropped++;
                return;
            }
            if (resp.error() == ErrorCode.NONE && resp.divergingEpoch() >= 0) {
                truncate(FollowerDecisions.divergenceTruncationOffset(resp.divergingEndOffset(),
                    log.endOffsetForEpoch(resp.divergingEpoch()), 0), "diverged at epoch " + resp.divergingEpoch());
            } else if (resp.error() == ErrorCode.NONE) {
                if (!resp.records().isEmpty() && !log.appendAsFollower(resp.records(), resp.sentOffset())) {
                    return; // the log refuses an answer to a fetch from another offset than its end
                }
                hw = FollowerDecisions.highWatermark(hw, resp.highWatermark(), log.logEnd());
            } else if (resp.error() == ErrorCode.OFFSET_OUT_OF_RANGE) {
                FollowerDecisions.OutOfRange action = FollowerDecisions.onOutOfRange(0, resp.logEnd(), log.logEnd());
                if (action instanceof FollowerDecisions.OutOfRange.TruncateTo t) {
                    truncate(t.offset(), "past the leader's end");
                }
            }
        }

        void truncate(long offset, String why) {
            if (offset >= log.logEnd()) {
                return;
            }
            if (offset < hw) {
                violation("broker " + id + " truncates to " + offset + ", below its high watermark " + hw + " (" + why + ")");
            }
            trace("broker " + id + " truncates from " + log.logEnd() + " to " + offset + " (" + why + ")");
            stats.truncations++;
            log.truncateTo(offset);
            hw = Math.min(hw, offset);
            checkedBelow = Math.min(checkedBelow, offset);
        }

        void crash(boolean loseUnflushed) {
            up = false;
            leader = false;
            state = null;
            waiters.clear();
            parked.clear();
            alterInFlight = null;
            fetchers.clear();
            image = MetadataImage.EMPTY;
            leaderEpoch = -1;
            leaderId = -1;
            hw = 0;
            leaderHwSeen = -1;
            if (loseUnflushed) {
                log.truncateTo(log.flushed);
                checkedBelow = Math.min(checkedBelow, log.logEnd());
            }
        }

        void restart() {
            up = true;
            incarnation++;
            ControllerResult<RegisterBrokerResponse> r = controller.registerBroker(cImage,
                RegisterBrokerRequest.newBuilder().setClusterId(CLUSTER).setBrokerId(id).setIncarnationId("b" + id + "-" + incarnation)
                    .setMaxSupportedMetadataVersion(1)
                    .addEndpoints(Endpoint.newBuilder().setName("broker").setHost("sim").setPort(9000 + id)).build());
            controllerApply(r.records());
            brokerEpoch = r.response().apply(cImage).getBrokerEpoch();
            applyImage(cImage);
            nextHeartbeatMs = time.milliseconds();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // The simulation

    private static final String CLUSTER = "sim";

    private final long seed;
    private final Decisions decisions;
    private final SplittableRandom random;
    private final ManualTime time = new ManualTime(1_000_000);
    private final Controller controller;
    private MetadataImage cImage = MetadataImage.EMPTY;
    private long nextIndex = 1;
    private long nextControllerCheckMs;
    private final List<Broker> brokers = new ArrayList<>();
    private final PriorityQueue<Message> network = new PriorityQueue<>((a, b) -> a.deliverAtMs() != b.deliverAtMs()
        ? Long.compare(a.deliverAtMs(), b.deliverAtMs()) : Long.compare(a.seq(), b.seq()));
    private long nextSeq;
    private final Map<Integer, Long> lastAlterDeliveryMs = new HashMap<>();
    /** The node cut off from every other, -1 for none. */
    private int isolated = -1;
    private long nextValue = 1;
    private final Map<Integer, Integer> appendedInEpoch = new HashMap<>();
    /** offset -> the record acknowledged there (acks=all). */
    private final TreeMap<Long, Rec> acked = new TreeMap<>();
    /** offset -> the record first seen below a high watermark there. */
    private final Map<Long, Rec> committed = new HashMap<>();
    private final Stats stats = new Stats();
    private final ArrayDeque<String> trace = new ArrayDeque<>();
    private String violation;

    ReplicationSimulation(long seed, Decisions decisions) {
        this.seed = seed;
        this.decisions = decisions;
        this.random = new SplittableRandom(seed);
        ControllerConfig config = ControllerConfig.builder().autoLeaderRebalanceEnable(true).leaderImbalanceCheckIntervalSeconds(1)
            .brokerSessionTimeoutMs(1_500).brokerHeartbeatIntervalMs(HEARTBEAT_MS).build();
        this.controller = new Controller(config, CLUSTER, time, new SplittableRandom(random.nextLong()));
    }

    /** Runs {@code steps} steps of faults and traffic, then a quiet period, checking the invariants after every event. */
    Result run(int steps) {
        controllerApply(controller.activate(cImage, 100, Endpoint.newBuilder().setName("controller").setHost("sim").setPort(1)
            .build()));
        for (int i = 1; i <= 3; i++) {
            Broker b = new Broker(i);
            brokers.add(b);
            b.restart();
        }
        for (Broker b : brokers) {
            controllerApply(controller.brokerHeartbeat(cImage, BrokerHeartbeatRequest.newBuilder().setBrokerId(b.id)
                .setBrokerEpoch(b.brokerEpoch).setMetadataOffset(cImage.index()).build()).records());
        }
        controllerApply(controller.createTopics(cImage, CreateTopicsRequest.newBuilder().addTopics(CreatableTopic.newBuilder()
            .setName(TOPIC).setNumPartitions(1).setReplicationFactor(3).putConfigs("min.insync.replicas", String.valueOf(MIN_ISR)))
            .build()).records());
        for (Broker b : brokers) {
            b.applyImage(cImage);
        }
        for (int i = 0; i < steps && violation == null; i++) {
            step(true);
        }
        // Quiet: heal, restart, no faults, no writes; then every acknowledged record must be on the leader.
        isolated = -1;
        for (Broker b : brokers) {
            if (!b.up && violation == null) {
                b.restart();
            }
        }
        for (int i = 0; i < 600 && violation == null; i++) {
            step(false);
        }
        if (violation == null) {
            for (Broker b : brokers) {
                if (b.up && b.leader) {
                    checkHoldsAcked(b, "final leader " + b.id);
                }
            }
        }
        return new Result(seed, violation == null ? null : violation + "\nlast events:\n  " + String.join("\n  ", trace), stats);
    }

    private void step(boolean faults) {
        stats.steps++;
        time.advance(1 + random.nextInt(20));
        long now = time.milliseconds();
        while (!network.isEmpty() && network.peek().deliverAtMs() <= now && violation == null) {
            deliver(network.poll());
            check();
        }
        for (Broker b : brokers) {
            if (!b.up || violation != null) {
                continue;
            }
            if (now >= b.nextHeartbeatMs) {
                b.nextHeartbeatMs = now + HEARTBEAT_MS;
                send(b.id, CONTROLLER, new Heartbeat(b.brokerEpoch, b.image.index()));
            }
            if (b.leader && now >= b.nextIsrCheckMs) {
                b.nextIsrCheckMs = now + ISR_CHECK_MS;
                b.isrCheck();
            }
            b.alterTimedOut();
            completeParked(b, false);
            b.maybeFetch();
            check();
        }
        if (now >= nextControllerCheckMs) {
            nextControllerCheckMs = now + 100;
            controllerApply(controller.periodic(cImage));
            check();
        }
        if (faults && violation == null) {
            faults();
            check();
        }
    }

    private void faults() {
        PartitionRegistration reg = cImage.topic(TOPIC).map(t -> t.partition(0)).orElseThrow();
        boolean lossInIsr = false;
        for (Broker b : brokers) {
            // Settled once it has registered again (which takes it out of the ISR) and is still out: from then on
            // it can rejoin only on fetches of its new incarnation.
            b.lostData &= !(b.up && !reg.isr().contains(b.id));
            lossInIsr |= b.lostData;
        }
        int roll = random.nextInt(1000);
        if (lossInIsr && ((roll >= 200 && roll < 206) || (roll >= 216 && roll < 222))) {
            return; // the fault budget: nothing else fails while a replica that lost data is not settled
        }
        if (roll < 150) {
            Broker b = brokers.get(random.nextInt(3));
            if (b.up) {
                b.produce(random.nextInt(10) < 7);
            }
        } else if (roll < 200) {
            Broker b = brokers.get(random.nextInt(3));
            b.log.flushed = b.log.logEnd();
        } else if (roll < 206) {
            Broker b = brokers.get(random.nextInt(3));
            if (b.up && brokers.stream().filter(x -> x.up).count() > 1) {
                boolean lose = random.nextBoolean() && othersHoldCommitted(b);
                trace("broker " + b.id + " crashes" + (lose ? ", losing its unflushed tail from " + b.log.flushed : ""));
                stats.crashes++;
                if (lose) {
                    stats.powerLosses++;
                    b.lostData = true;
                }
                b.crash(lose);
            }
        } else if (roll < 216) {
            Broker b = brokers.get(random.nextInt(3));
            if (!b.up) {
                trace("broker " + b.id + " restarts");
                b.restart();
            }
        } else if (roll < 222) {
            isolated = random.nextInt(4);
            trace("node " + isolated + " is cut off");
        } else if (roll < 240) {
            if (isolated >= 0) {
                trace("node " + isolated + " is reachable again");
            }
            isolated = -1;
        }
    }

    /**
     * Whether {@code b} may lose its unflushed data: it is the only fault (every other broker runs, is unfenced and
     * has heartbeated recently, so that no fencing is already on its way; no node is cut off; no ISR change is in
     * flight that could leave {@code b} the last member) and every committed record is also held, unchanged, by
     * another ISR member.
     */
    private boolean othersHoldCommitted(Broker b) {
        PartitionRegistration reg = cImage.topic(TOPIC).map(t -> t.partition(0)).orElse(null);
        long now = time.hiResMilliseconds(); // the controller's clock for heartbeats
        if (reg == null || isolated >= 0 || network.stream().anyMatch(m -> m.payload() instanceof Alter)
            || brokers.stream().anyMatch(o -> o.alterInFlight != null || (o != b && (!o.up
            || cImage.broker(o.id).map(r -> r.fenced()).orElse(true) || now - controller.brokerLastContactMs(o.id) > 2 * HEARTBEAT_MS)))) {
            return false;
        }
        for (Map.Entry<Long, Rec> e : committed.entrySet()) {
            boolean held = false;
            for (Broker o : brokers) {
                if (o != b && o.up && reg.isr().contains(o.id) && e.getValue().equals(o.log.at(e.getKey()))) {
                    held = true;
                    break;
                }
            }
            if (!held) {
                return false;
            }
        }
        return true;
    }

    private void send(int from, int to, Payload payload) {
        if (random.nextInt(100) < 3) {
            return; // dropped
        }
        long latency = random.nextInt(100) < 15 ? 200 + random.nextInt(4_000) : 1 + random.nextInt(30);
        long at = time.milliseconds() + latency;
        if (payload instanceof Alter || payload instanceof AlterAnswer) {
            // The controller channel is one ordered connection per broker with a FIFO event queue behind it: ISR
            // changes and their answers are delayed or lost, never overtaken by later ones.
            int key = payload instanceof Alter ? from : -to;
            at = Math.max(at, lastAlterDeliveryMs.getOrDefault(key, 0L));
            lastAlterDeliveryMs.put(key, at);
        }
        network.add(new Message(at, nextSeq++, from, to, payload));
    }

    private void deliver(Message m) {
        if (isolated >= 0 && (m.from() == isolated || m.to() == isolated) && m.from() != m.to()) {
            return;
        }
        if (m.to() == CONTROLLER) {
            Broker from = brokers.get(m.from() - 1);
            if (m.payload() instanceof Heartbeat h) {
                ControllerResult<?> r = controller.brokerHeartbeat(cImage, BrokerHeartbeatRequest.newBuilder()
                    .setBrokerId(m.from()).setBrokerEpoch(h.brokerEpoch()).setMetadataOffset(h.metadataOffset()).build());
                controllerApply(r.records());
                send(CONTROLLER, m.from(), new MetadataPush(cImage));
            } else if (m.payload() instanceof Alter a) {
                ControllerResult<AlterPartitionResponse> r = controller.alterPartition(cImage, a.request());
                controllerApply(r.records());
                send(CONTROLLER, m.from(), new AlterAnswer(a.change(), r.response().apply(cImage)));
            }
            return;
        }
        Broker to = brokers.get(m.to() - 1);
        if (!to.up) {
            return;
        }
        if (m.payload() instanceof MetadataPush p) {
            to.applyImage(p.image());
        } else if (m.payload() instanceof FetchReq f) {
            to.onFetch(m.from(), f);
        } else if (m.payload() instanceof FetchResp f) {
            to.onFetchAnswer(m.from(), f);
        } else if (m.payload() instanceof AlterAnswer a) {
            to.onAlterAnswer(a);
        }
    }

    /** Appends the records as one entry of the metadata log and pushes the new image to every broker. */
    private void controllerApply(List<MetadataRecord> records) {
        if (records.isEmpty()) {
            return;
        }
        PartitionRegistration before = cImage.topic(TOPIC).map(t -> t.partition(0)).orElse(null);
        cImage = MetadataDelta.replayAll(cImage, nextIndex++, records).image();
        PartitionRegistration after = cImage.topic(TOPIC).map(t -> t.partition(0)).orElse(null);
        if (after != null && !after.equals(before)) {
            trace("controller: leader " + after.leader() + " epoch " + after.leaderEpoch() + " isr " + after.isr()
                + " partition epoch " + after.partitionEpoch());
        }
        for (Broker b : brokers) {
            send(CONTROLLER, b.id, new MetadataPush(cImage));
        }
    }

    private static List<Integer> change(AlterAnswer a) {
        return a.change().newIsr();
    }

    private void acknowledge(long offset, Rec rec) {
        Rec before = acked.putIfAbsent(offset, rec);
        if (before != null && !before.equals(rec)) {
            violation("offset " + offset + " acknowledged twice with different records: " + before + " and " + rec);
        }
        stats.acked++;
    }

    private void checkHoldsAcked(Broker b, String who) {
        for (Map.Entry<Long, Rec> e : acked.entrySet()) {
            Rec has = b.log.at(e.getKey());
            if (!e.getValue().equals(has)) {
                violation("the " + who + " lacks acknowledged record " + e.getValue() + " at offset " + e.getKey() + " (has " + has
                    + ", log end " + b.log.logEnd() + ")");
                return;
            }
        }
    }

    /** Invariants 2 and 4 (1, 3 and 5 are checked where they can break: appends, leader changes, truncations). */
    private void check() {
        for (Broker b : brokers) {
            if (violation != null) {
                return;
            }
            if (b.up && b.leader) {
                if (b.leaderHwSeen >= 0 && b.hw < b.leaderHwSeen) {
                    violation("HW of leader " + b.id + " went back from " + b.leaderHwSeen + " to " + b.hw);
                }
                b.leaderHwSeen = b.hw;
            } else {
                b.leaderHwSeen = -1;
            }
            long upTo = Math.min(b.hw, b.log.logEnd());
            for (long o = b.checkedBelow; o < upTo; o++) {
                Rec rec = b.log.at(o);
                Rec first = committed.putIfAbsent(o, rec);
                if (first != null && !first.equals(rec)) {
                    violation("broker " + b.id + " holds " + rec + " at offset " + o + " below its HW " + b.hw + ", where " + first
                        + " was committed");
                    return;
                }
            }
            b.checkedBelow = Math.max(b.checkedBelow, upTo);
        }
    }

    private void violation(String message) {
        if (violation == null) {
            violation = "t=" + time.milliseconds() + " ms, step " + stats.steps + ": " + message;
        }
    }

    private void trace(String event) {
        trace.addLast(time.milliseconds() + " ms: " + event);
        if (trace.size() > 60) {
            trace.removeFirst();
        }
    }
}
