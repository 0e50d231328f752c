package io.raftline.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.raftline.broker.group.ExecutorGroupScheduler;
import io.raftline.broker.group.GroupConfig;
import io.raftline.broker.group.GroupCoordinator;
import io.raftline.broker.group.InMemoryOffsetsTopic;
import io.raftline.broker.replica.ReplicaManagerFixture;
import io.raftline.broker.rpc.BrokerRpcService;
import io.raftline.broker.rpc.BrokerServiceFixture;
import io.raftline.broker.rpc.ServedImage;
import io.raftline.broker.security.RequestAuthorizer;
import io.raftline.common.SystemTime;
import io.raftline.common.config.HostPort;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutations of valid Kafka frames of Produce, Fetch, ListOffsets, FindCoordinator, JoinGroup, OffsetCommit and
 * CreateTopics (built with kafka-clients' own message classes) sent over real TCP to a Kafka listener in front of a
 * real broker's data plane (admission, replica manager, logs of topic {@code t}) and group coordinator: a byte flipped,
 * the frame cut short, an int overwritten with a huge, negative or zero value (array counts and lengths among them),
 * bytes appended. Each is answered or its connection closed, none hangs; a produce is stored whole (3 records) or not
 * at all; the admission is idle after each; and the listener then serves well-formed requests.
 */
@Timeout(120)
class KafkaHostileFramesTest {

    private static final long SEED = 20261207L;
    private static final int MAX_FRAME = 1 << 20;
    private static final int CASES = 420;

    @TempDir
    Path tmp;

    private ReplicaManagerFixture fixture;
    private BrokerRpcService service;
    private BrokerServiceFixture brokerService;
    private ExecutorGroupScheduler groupScheduler;
    private GroupCoordinator coordinator;
    private KafkaListener listener;

    @BeforeEach
    void start() {
        fixture = new ReplicaManagerFixture(tmp, 2, List.of(1), List.of(1));
        brokerService = new BrokerServiceFixture(fixture);
        service = brokerService.service;
        ServedImage served = brokerService.served;
        InMemoryOffsetsTopic offsets = new InMemoryOffsetsTopic(1);
        offsets.setLeader(0, 1);
        groupScheduler = new ExecutorGroupScheduler("fuzz-groups");
        coordinator = new GroupCoordinator(1, new GroupConfig(1000, 300_000, 0, 3_600_000L, 60_000L, 5000, 4096), offsets,
            SystemTime.INSTANCE, groupScheduler, Runnable::run, new SplittableRandom(SEED));
        coordinator.startup();
        coordinator.onBecomeLeader(0, 1);
        KafkaApis apis = new KafkaApis(service, served, "fuzz-cluster", new KafkaDataApis(fixture.replicaManager, service,
            1 << 20, null, null, new io.raftline.broker.fetchsession.FetchSessionCache(16, SystemTime.INSTANCE,
            new SplittableRandom(SEED)), RequestAuthorizer.OFF), new KafkaGroupApis(coordinator, served), RequestAuthorizer.OFF);
        listener = KafkaListener.start(new HostPort("127.0.0.1", 0), apis, service.produceAdmission(), MAX_FRAME, 16);
    }

    @AfterEach
    void stop() {
        listener.close();
        coordinator.shutdown();
        groupScheduler.close();
        brokerService.close();
        fixture.close();
    }

    @Test
    void mutatedFramesOfEveryApiAreAnsweredOrClosedAndLeakNothing() throws IOException {
        SplittableRandom random = new SplittableRandom(SEED);
        int[] outcomes = new int[2];
        for (int i = 0; i < CASES; i++) {
            Frame valid = frame(i % 7, i);
            byte[] bytes = mutate(valid.bytes(), random);
            long before = fixture.partition(0).logEndOffset();
            int first = exchange(bytes, "seed " + SEED + ", case " + i + " (" + valid.api() + ")");
            outcomes[first < 0 ? 0 : 1]++;
            long stored = fixture.partition(0).logEndOffset() - before;
            assertThat(stored).as("records stored by case %d (%s)", i, valid.api()).isIn(0L, 3L);
            awaitIdle();
        }
        assertThat(outcomes[0]).as("connections closed").isPositive();
        assertThat(outcomes[1]).as("frames answered").isPositive();
        // the listener still serves: a well-formed produce is stored and answered
        long before = fixture.partition(0).logEndOffset();
        ProduceResponseData answer = produce(produceData((short) -1), 9);
        assertThat(answer.responses().iterator().next().partitionResponses().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(fixture.partition(0).logEndOffset()).isEqualTo(before + 3);
    }

    /** A produce whose acks is none of -1, 0, 1 is refused (INVALID_REQUIRED_ACKS, as Kafka) and stores nothing. */
    @Test
    void aProduceWithAcksOutsideTheThreeIsRefused() throws IOException {
        for (short acks : new short[] {2, -2, Short.MAX_VALUE, Short.MIN_VALUE}) {
            ProduceResponseData answer = produce(produceData(acks), 9);
            assertThat(answer.responses().iterator().next().partitionResponses().get(0).errorCode()).as("acks %d", acks)
                .isEqualTo(Errors.INVALID_REQUIRED_ACKS.code());
        }
        assertThat(fixture.partition(0).logEndOffset()).isZero();
        awaitIdle();
    }

    // ---------------------------------------------------------------------------------------------------------

    private record Frame(ApiKeys api, byte[] bytes) {
    }

    private static Frame frame(int which, int correlationId) {
        return switch (which) {
            case 0 -> frame(ApiKeys.PRODUCE, (short) 9, produceData((short) (correlationId % 2 == 0 ? -1 : 1)), correlationId);
            case 1 -> frame(ApiKeys.FETCH, (short) 12, new FetchRequestData().setReplicaId(-1).setMaxWaitMs(5).setMinBytes(1)
                .setMaxBytes(1 << 20).setTopics(List.of(new FetchRequestData.FetchTopic().setTopic("t").setPartitions(List.of(
                    new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20))))),
                correlationId);
            case 2 -> frame(ApiKeys.LIST_OFFSETS, (short) 6, new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(
                new ListOffsetsRequestData.ListOffsetsTopic().setName("t").setPartitions(List.of(
                    new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1))))), correlationId);
            case 3 -> frame(ApiKeys.FIND_COORDINATOR, (short) 3, new FindCoordinatorRequestData().setKey("group-" + correlationId)
                .setKeyType((byte) 0), correlationId);
            case 4 -> frame(ApiKeys.JOIN_GROUP, (short) 5, new JoinGroupRequestData().setGroupId("group-" + correlationId)
                .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(30_000).setMemberId("").setProtocolType("consumer")
                .setProtocols(new JoinGroupRequestData.JoinGroupRequestProtocolCollection(List.of(
                    new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(new byte[] {0, 1, 2, 3}))
                    .iterator())), correlationId);
            case 5 -> frame(ApiKeys.OFFSET_COMMIT, (short) 8, new OffsetCommitRequestData().setGroupId("group-" + correlationId)
                .setGenerationIdOrMemberEpoch(-1).setMemberId("").setTopics(List.of(
                    new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("t").setPartitions(List.of(
                        new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0)
                            .setCommittedOffset(1).setCommittedMetadata("m"))))), correlationId);
            default -> frame(ApiKeys.CREATE_TOPICS, (short) 5, new CreateTopicsRequestData().setTimeoutMs(1_000).setTopics(
                new CreateTopicsRequestData.CreatableTopicCollection(List.of(new CreateTopicsRequestData.CreatableTopic()
                    .setName("new-" + correlationId).setNumPartitions(1).setReplicationFactor((short) 1)).iterator())),
                correlationId);
        };
    }

    private static ProduceRequestData produceData(short acks) {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
            new SimpleRecord("a".getBytes(StandardCharsets.UTF_8)), new SimpleRecord("b".getBytes(StandardCharsets.UTF_8)),
            new SimpleRecord("k".getBytes(StandardCharsets.UTF_8), "c".getBytes(StandardCharsets.UTF_8)));
        return new ProduceRequestData().setAcks(acks).setTimeoutMs(5_000).setTopicData(
            new ProduceRequestData.TopicProduceDataCollection(List.of(new ProduceRequestData.TopicProduceData().setName("t")
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))))
                .iterator()));
    }

    private static Frame frame(ApiKeys api, short version, ApiMessage body, int correlationId) {
        RequestHeader header = new RequestHeader(api, version, "fuzz", correlationId);
        ByteBuffer b = RequestUtils.serialize(header.data(), header.headerVersion(), body, version);
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return new Frame(api, bytes);
    }

    /** A byte flipped; cut short; an int overwritten (huge, negative, zero, max); bytes appended; or two of these. */
    private static byte[] mutate(byte[] valid, SplittableRandom random) {
        byte[] bytes = valid.clone();
        int kinds = 1 + random.nextInt(2);
        for (int k = 0; k < kinds; k++) {
            switch (random.nextInt(4)) {
                case 0 -> bytes[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
                case 1 -> bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length));
                case 2 -> {
                    if (bytes.length >= 4) {
                        int[] values = {Integer.MAX_VALUE, Integer.MIN_VALUE, -1, 0, 0x7fff_0000, 1 << 24, random.nextInt()};
                        ByteBuffer.wrap(bytes).putInt(random.nextInt(bytes.length - 3), values[random.nextInt(values.length)]);
                    }
                }
                default -> bytes = Arrays.copyOf(bytes, bytes.length + 1 + random.nextInt(64));
            }
            if (bytes.length == 0) {
                bytes = new byte[] {0};
            }
        }
        return bytes;
    }

    /**
     * A Kafka fetch that asks to wait as long as an int allows, from a client that then closes its connection: the
     * broker does not keep it parked for the rest of those 24 days (the gRPC side's fix, on this listener).
     */
    @Test
    void aParkedFetchOfAConnectionThatClosedIsForgotten() throws Exception {
        byte[] forever = frame(ApiKeys.FETCH, (short) 12, new FetchRequestData().setReplicaId(-1).setMaxWaitMs(Integer.MAX_VALUE)
            .setMinBytes(Integer.MAX_VALUE).setMaxBytes(Integer.MAX_VALUE).setTopics(List.of(new FetchRequestData.FetchTopic()
                .setTopic("t").setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                    .setPartitionMaxBytes(Integer.MAX_VALUE))))), 1).bytes();
        List<Socket> sockets = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                Socket socket = new Socket("127.0.0.1", listener.port());
                sockets.add(socket);
                DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                out.writeInt(forever.length);
                out.write(forever);
                out.flush();
            }
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> fixture.replicaManager.fetchManager().parkedFetches(false) == 10);
        } finally {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() ->
            assertThat(fixture.replicaManager.fetchManager().parkedFetches(false)).as("parked for closed connections")
                .isZero());
    }

    /** Sends one frame on a connection of its own: an answer's first byte, or -1 when the listener closed it. */
    private int exchange(byte[] frame, String what) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            socket.setSoTimeout(10_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(frame.length);
            out.write(frame);
            out.flush();
            try {
                return socket.getInputStream().read();
            } catch (SocketException reset) {
                return -1;
            } catch (java.net.SocketTimeoutException hang) {
                throw new AssertionError("no answer and no close within 10 s: " + what, hang);
            }
        }
    }

    private ProduceResponseData produce(ProduceRequestData data, int correlationId) throws IOException {
        short version = 9;
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            socket.setSoTimeout(10_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            byte[] bytes = frame(ApiKeys.PRODUCE, version, data, correlationId).bytes();
            out.writeInt(bytes.length);
            out.write(bytes);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            ByteBuffer frame = ByteBuffer.wrap(answer);
            assertThat(ResponseHeader.parse(frame, ApiKeys.PRODUCE.responseHeaderVersion(version)).correlationId())
                .isEqualTo(correlationId);
            return new ProduceResponseData(new ByteBufferAccessor(frame), version);
        }
    }

    private void awaitIdle() {
        await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2))
            .until(() -> service.queuedProduceRequests() == 0 && service.queuedProduceBytes() == 0);
    }
}
