package io.raftline.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.common.ManualTime;
import io.raftline.metadata.controller.Controller;
import io.raftline.metadata.controller.ControllerConfig;
import io.raftline.metadata.controller.ControllerResult;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.protocol.controller.RegisterBrokerRequest;
import io.raftline.protocol.metadata.Endpoint;
import io.raftline.protocol.metadata.MetadataRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pipeline without Ratis: a fake log assigns indexes at append (as the Raft leader does) and commits entries
 * when the test says so, applying them to the "committed" image in log order. Decisions are the real Controller's.
 */
class WritePipelineTest {

    private static final String CLUSTER = "c";
    private static final long SEED = 7;

    /** One appended entry of the fake log. */
    private record Entry(long index, List<MetadataRecord> records, CompletableFuture<Long> future) {
    }

    private final ManualTime time = new ManualTime();
    private Controller controller;
    private MetadataImage committed = MetadataImage.EMPTY;
    private final List<Entry> log = new ArrayList<>();
    private long nextIndex = 1;
    private long commitIndex;
    private int failures;
    private WritePipeline pipeline;

    @BeforeEach
    void setUp() {
        System.out.println("seed " + SEED);
        controller = new Controller(ControllerConfig.builder().autoLeaderRebalanceEnable(false).build(), CLUSTER, time,
            new SplittableRandom(SEED));
        pipeline = newPipeline(64);
        // Activate and start three brokers through the pipeline, committing as we go.
        submit(image -> new ControllerResult<Void>(controller.activate(image, 100,
            Endpoint.newBuilder().setName("c").setHost("h").setPort(1).build()), after -> null), true);
        commitAll();
        for (int id = 1; id <= 3; id++) {
            int b = id;
            var reg = submit(image -> controller.registerBroker(image, RegisterBrokerRequest.newBuilder().setClusterId(CLUSTER)
                .setBrokerId(b).setIncarnationId("inc-" + b).setMaxSupportedMetadataVersion(1)
                .addEndpoints(Endpoint.newBuilder().setName("broker").setHost("127.0.0.1").setPort(9000 + b)).build()), true);
            commitAll();
            long epoch = reg.join().response().getBrokerEpoch();
            assertThat(epoch).isEqualTo(committed.broker(b).orElseThrow().epoch());
            submit(image -> controller.brokerHeartbeat(image, BrokerHeartbeatRequest.newBuilder().setBrokerId(b)
                .setBrokerEpoch(epoch).setMetadataOffset(committed.index()).build()), false);
            commitAll();
            assertThat(committed.broker(b).orElseThrow().fenced()).isFalse();
        }
    }

    private WritePipeline newPipeline(int maxInFlight) {
        return new WritePipeline(() -> committed, records -> {
            Entry e = new Entry(nextIndex++, records, new CompletableFuture<>());
            log.add(e);
            return e.future();
        }, Runnable::run, maxInFlight, () -> failures++);
    }

    private <T> CompletableFuture<ActiveController.Committed<T>> submit(Function<MetadataImage, ControllerResult<T>> d,
                                                                        boolean exclusive) {
        return pipeline.submit(d, exclusive);
    }

    private Entry entry(long index) {
        return log.stream().filter(e -> e.index() == index).findFirst().orElseThrow();
    }

    /** Commits (applies) every appended entry up to {@code index}, in log order, without replying yet. */
    private void applyUpTo(long index) {
        while (commitIndex < index) {
            Entry e = entry(++commitIndex);
            // A failed append never committed (the leader lost its term): the log holds something else there.
            if (!e.future().isCompletedExceptionally()) {
                committed = MetadataDelta.replayAll(committed, e.index(), e.records()).image();
            } else {
                committed = committed.withIndex(e.index());
            }
        }
    }

    /** Applies up to {@code index} and replies to that entry's append (replies may come in any order). */
    private void reply(long index) {
        applyUpTo(Math.max(commitIndex, index));
        entry(index).future().complete(index);
    }

    private void commitAll() {
        long last = nextIndex - 1;
        applyUpTo(last);
        for (Entry e : log) {
            e.future().complete(e.index());
        }
    }

    private static Function<MetadataImage, ControllerResult<CreateTopicsResponse>> create(Controller c, String name) {
        return image -> c.createTopics(image, CreateTopicsRequest.newBuilder().addTopics(CreatableTopic.newBuilder()
            .setName(name).setNumPartitions(3).setReplicationFactor(3)).build());
    }

    private static ErrorCode code(CompletableFuture<ActiveController.Committed<CreateTopicsResponse>> f) {
        return f.join().response().getTopics(0).getError().getCode();
    }

    /**
     * An ACL whose resource name is 9 MiB (a create-acls request of that size fits the controller's 64 MiB bound):
     * refused before anything is appended, answered INVALID_REQUEST, and the next write goes through. Unbounded, a
     * 40 MiB one made a 3-node quorum's leader lose its leadership while appending it, again at each retry.
     */
    @Test
    void aDecisionWhoseRecordsAreAboveTheEntryBoundIsRefusedBeforeItIsAppended() {
        io.raftline.protocol.acl.AclBinding huge = io.raftline.protocol.acl.AclBinding.newBuilder().setPrincipal("User:a")
            .setHost("*").setResourceType(io.raftline.protocol.acl.ResourceType.TOPIC).setResourceName("x".repeat(9 << 20))
            .setPatternType(io.raftline.protocol.acl.PatternType.LITERAL).setOperation(io.raftline.protocol.acl.Operation.READ)
            .setPermission(io.raftline.protocol.acl.Permission.ALLOW).build();
        long before = nextIndex;
        var refused = submit(image -> controller.createAcls(image, io.raftline.protocol.controller.CreateAclsRequest
            .newBuilder().addBindings(huge).build()), false);
        assertThat(refused).isCompletedExceptionally();
        assertThat(nextIndex).as("entries appended").isEqualTo(before);
        Throwable why = refused.handle((c, e) -> e).join();
        assertThat(ControllerServer.errorOf(why).getCode()).isEqualTo(ErrorCode.INVALID_REQUEST);
        assertThat(ControllerServer.errorOf(why).getMessage()).contains("at most " + WritePipeline.MAX_ENTRY_BYTES);
        var next = submit(create(controller, "after"), false);
        commitAll();
        assertThat(code(next)).isEqualTo(ErrorCode.NONE);
    }

    @Test
    void severalWritesAreInFlightAndEachIsDecidedOnThePreviousOnes() {
        long before = nextIndex;
        var a = submit(create(controller, "a"), false);
        var b = submit(create(controller, "b"), false);
        var again = submit(create(controller, "a"), false);
        // Two entries appended before either committed; the third decision saw "a" in the projection.
        assertThat(nextIndex - before).isEqualTo(2);
        assertThat(pipeline.inFlight()).isEqualTo(3);
        assertThat(a).isNotDone();
        assertThat(again).isNotDone();
        reply(before);
        assertThat(a).isDone();
        assertThat(b).isNotDone();
        assertThat(again).isNotDone();
        reply(before + 1);
        assertThat(code(a)).isEqualTo(ErrorCode.NONE);
        assertThat(code(b)).isEqualTo(ErrorCode.NONE);
        assertThat(code(again)).isEqualTo(ErrorCode.TOPIC_ALREADY_EXISTS);
        assertThat(a.join().index()).isEqualTo(before);
        assertThat(b.join().index()).isEqualTo(before + 1);
        // The refusal is answered with the index it was decided on, so a read after it sees "a".
        assertThat(again.join().index()).isEqualTo(before + 1);
        assertThat(committed.topic("a")).isPresent();
        assertThat(committed.topic("b")).isPresent();
        assertThat(pipeline.inFlight()).isZero();
    }

    @Test
    void answersGoOutInDecisionOrderWhateverTheOrderOfReplies() {
        long first = nextIndex;
        List<CompletableFuture<ActiveController.Committed<CreateTopicsResponse>>> fs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            fs.add(submit(create(controller, "t" + i), false));
        }
        List<Integer> answered = new ArrayList<>();
        for (int i = 0; i < fs.size(); i++) {
            int n = i;
            fs.get(i).thenRun(() -> answered.add(n));
        }
        reply(first + 3);
        reply(first + 1);
        assertThat(answered).isEmpty();
        reply(first);
        assertThat(answered).containsExactly(0, 1);
        reply(first + 2);
        assertThat(answered).containsExactly(0, 1, 2, 3);
        for (int i = 0; i < fs.size(); i++) {
            assertThat(fs.get(i).join().index()).isEqualTo(first + i);
        }
    }

    @Test
    void anExclusiveDecisionWaitsForAnEmptyPipelineAndHoldsLaterOnes() {
        long first = nextIndex;
        var a = submit(create(controller, "a"), false);
        var reg = submit(image -> controller.registerBroker(image, RegisterBrokerRequest.newBuilder().setClusterId(CLUSTER)
            .setBrokerId(4).setIncarnationId("inc-4").setMaxSupportedMetadataVersion(1)
            .addEndpoints(Endpoint.newBuilder().setName("broker").setHost("127.0.0.1").setPort(9004)).build()), true);
        var b = submit(create(controller, "b"), false);
        assertThat(nextIndex).isEqualTo(first + 1);
        assertThat(pipeline.waiting()).isEqualTo(2);
        reply(first);
        assertThat(code(a)).isEqualTo(ErrorCode.NONE);
        // The registration is decided now, alone; "b" still waits for it.
        assertThat(nextIndex).isEqualTo(first + 2);
        assertThat(pipeline.waiting()).isEqualTo(1);
        reply(first + 1);
        // Its epoch is the index the log gave its entry.
        assertThat(reg.join().response().getBrokerEpoch()).isEqualTo(first + 1);
        assertThat(nextIndex).isEqualTo(first + 3);
        reply(first + 2);
        assertThat(code(b)).isEqualTo(ErrorCode.NONE);
    }

    @Test
    void aFullPipelineMakesLaterDecisionsWait() {
        pipeline = newPipeline(2);
        long first = nextIndex;
        var a = submit(create(controller, "a"), false);
        var b = submit(create(controller, "b"), false);
        var c = submit(create(controller, "c"), false);
        assertThat(nextIndex).isEqualTo(first + 2);
        assertThat(pipeline.waiting()).isEqualTo(1);
        reply(first);
        assertThat(nextIndex).isEqualTo(first + 3);
        reply(first + 1);
        reply(first + 2);
        assertThat(List.of(code(a), code(b), code(c))).containsOnly(ErrorCode.NONE);
    }

    @Test
    void aFailedAppendFailsEverythingPendingAndTheNextDecisionSeesOnlyTheLog() {
        long first = nextIndex;
        var a = submit(create(controller, "a"), false);
        var b = submit(create(controller, "b"), false);
        entry(first).future().completeExceptionally(new IllegalStateException("not leader"));
        assertThat(failures).isEqualTo(1);
        assertThatThrownBy(a::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(NotControllerException.class);
        assertThatThrownBy(b::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(NotControllerException.class);
        assertThat(pipeline.inFlight()).isZero();
        // A late failure of a dropped entry changes nothing: it was already failed.
        entry(first + 1).future().completeExceptionally(new IllegalStateException("not leader"));
        assertThat(failures).isEqualTo(1);
        // Neither entry committed: a new decision for "b" is made on the committed image, without the dropped ones.
        var again = submit(create(controller, "b"), false);
        reply(nextIndex - 1);
        assertThat(code(again)).isEqualTo(ErrorCode.NONE);
        assertThat(committed.topic("a")).isEmpty();
        assertThat(pipeline.inFlight()).isZero();
    }

    @Test
    void resetFailsWaitingDecisionsToo() {
        pipeline = newPipeline(1);
        var a = submit(create(controller, "a"), false);
        var b = submit(create(controller, "b"), false);
        assertThat(pipeline.waiting()).isEqualTo(1);
        pipeline.reset(new NotControllerException("lost leadership"));
        assertThat(a).isCompletedExceptionally();
        assertThat(b).isCompletedExceptionally();
        assertThat(pipeline.waiting()).isZero();
        assertThat(failures).isZero();
    }

    @Test
    void aDecisionThatThrowsFailsAloneAndWritesNothing() {
        long first = nextIndex;
        var bad = submit(image -> {
            throw new IllegalArgumentException("bad input");
        }, false);
        var a = submit(create(controller, "a"), false);
        assertThat(bad).isCompletedExceptionally();
        assertThat(nextIndex).isEqualTo(first + 1);
        reply(first);
        assertThat(code(a)).isEqualTo(ErrorCode.NONE);
    }
}
