package io.raftline.client.testing;

import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.HostPort;
import io.raftline.protocol.broker.BrokerInfo;
import io.raftline.protocol.broker.LeaderHint;
import io.raftline.protocol.broker.MetadataRequest;
import io.raftline.protocol.broker.MetadataResponse;
import io.raftline.protocol.broker.PartitionMetadata;
import io.raftline.protocol.broker.TopicMetadata;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A working fake of a Raftline cluster for SDK tests: N brokers, each a real gRPC server (Netty, ephemeral port on
 * 127.0.0.1) implementing BrokerService over shared in-memory state. Partition logs keep the producer's batch bytes,
 * stamp base offsets, enforce idempotent sequences and answer fetches from the stored bytes. Tests can move a
 * leader (the old one answers NOT_LEADER with a hint), inject produce/fetch/admin errors, corrupt or truncate
 * fetch responses. Everything is guarded by this object's lock.
 */
public final class FakeCluster implements AutoCloseable {

    /** What a metadata request meets at a broker that is down or restarting. */
    private static final Status BROKER_DOWN = Status.UNAVAILABLE.withDescription("injected metadata failure");

    static final String CLUSTER_ID = "fake-cluster-0000000000";

    final Map<Integer, Server> servers = new LinkedHashMap<>();
    final Map<Integer, Integer> ports = new LinkedHashMap<>();
    final Map<String, List<FakePartition>> topics = new LinkedHashMap<>();
    final Map<String, byte[]> topicIds = new LinkedHashMap<>();
    final Map<String, Map<String, String>> topicConfigs = new LinkedHashMap<>();
    final Deque<ErrorCode> adminErrors = new ArrayDeque<>();
    final AtomicLong nextProducerId = new AtomicLong(1000);
    final AtomicInteger produceRequests = new AtomicInteger();
    final AtomicInteger fetchRequests = new AtomicInteger();
    final AtomicInteger metadataRequests = new AtomicInteger();
    /** Metadata requests answered, by broker id. */
    final Map<Integer, Integer> metadataAnsweredBy = new java.util.concurrent.ConcurrentHashMap<>();
    /** Metadata requests still to fail with {@link #metadataFailure} (UNAVAILABLE: a broker down or restarting). */
    final AtomicInteger failingMetadata = new AtomicInteger();
    volatile Status metadataFailure = BROKER_DOWN;
    final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fake-cluster-scheduler");
        t.setDaemon(true);
        return t;
    });
    int controllerId;
    private int topicCounter;

    private FakeCluster() {
    }

    /** Starts {@code brokers} brokers with ids 1..N. */
    public static FakeCluster start(int brokers) throws IOException {
        FakeCluster c = new FakeCluster();
        for (int id = 1; id <= brokers; id++) {
            Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new FakeBrokerService(c, id))
                .maxInboundMessageSize(64 * 1024 * 1024)
                .build()
                .start();
            c.servers.put(id, server);
            c.ports.put(id, server.getPort());
        }
        c.controllerId = 1;
        return c;
    }

    /**
     * Stops one broker's server: connections to it fail from now on, while the metadata the others answer still names
     * it (and it keeps leading its partitions), as while the controller has not noticed it died.
     */
    public void stopBroker(int brokerId) throws InterruptedException {
        Server server = servers.get(brokerId);
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
    }

    /** {@code bootstrap.servers} for all brokers. */
    public String bootstrap() {
        return String.join(",", ports.values().stream().map(p -> "127.0.0.1:" + p).toList());
    }

    /** {@code bootstrap.servers} for one broker. */
    public String bootstrap(int brokerId) {
        return "127.0.0.1:" + ports.get(brokerId);
    }

    /** Creates a topic; partition p is led by broker (p mod N) + 1, replicated on every broker. */
    public synchronized void createTopic(String name, int partitions) {
        List<Integer> ids = new ArrayList<>(ports.keySet());
        List<FakePartition> parts = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            int leader = ids.get(p % ids.size());
            List<Integer> replicas = new ArrayList<>();
            replicas.add(leader);
            ids.stream().filter(i -> i != leader).forEach(replicas::add);
            parts.add(new FakePartition(name, p, leader, replicas));
        }
        topics.put(name, parts);
        topicIds.put(name, ByteBuffer.allocate(16).putLong(0x5241_4654L).putLong(++topicCounter).array());
        topicConfigs.put(name, new LinkedHashMap<>());
    }

    /** The partition's state (call under the cluster's lock, or after the traffic stopped). */
    public synchronized FakePartition partition(String topic, int partition) {
        return topics.get(topic).get(partition);
    }

    /** Moves leadership of a partition, bumping its leader epoch. */
    public synchronized void moveLeader(String topic, int partition, int newLeader) {
        FakePartition p = partition(topic, partition);
        p.leader = newLeader;
        p.leaderEpoch++;
    }

    /** The next produce requests for the partition fail with these codes, one each. */
    public synchronized void injectProduceErrors(String topic, int partition, ErrorCode... codes) {
        partition(topic, partition).produceErrors.addAll(List.of(codes));
    }

    /**
     * The next produce requests for the partition are stored and then answered with these codes, one each: a leader
     * that appended the batch but could not say so (its followers fell behind, it lost the leadership, the request
     * timed out).
     */
    public synchronized void injectProduceErrorsAfterAppend(String topic, int partition, ErrorCode... codes) {
        partition(topic, partition).afterAppendErrors.addAll(List.of(codes));
    }

    /** The next fetches of the partition fail with these codes. */
    public synchronized void injectFetchErrors(String topic, int partition, ErrorCode... codes) {
        partition(topic, partition).fetchErrors.addAll(List.of(codes));
    }

    /** The next admin calls answer with these top-level codes. */
    public synchronized void injectAdminErrors(ErrorCode... codes) {
        adminErrors.addAll(List.of(codes));
    }

    /** The next {@code n} fetch answers for the partition have one byte flipped inside the first batch's records. */
    public synchronized void corruptNextFetches(String topic, int partition, int n) {
        partition(topic, partition).corruptNextFetches = n;
    }

    /** The next {@code n} fetch answers from {@code offset} or later have one byte flipped inside their last batch. */
    public synchronized void corruptFetchesFrom(String topic, int partition, long offset, int n) {
        FakePartition p = partition(topic, partition);
        p.corruptFetchesFrom = offset;
        p.corruptFetchesFromCount = n;
    }

    /** The fetch offset of every fetch the partition's leader answered so far, in order. */
    public synchronized List<Long> fetchOffsets(String topic, int partition) {
        return List.copyOf(partition(topic, partition).fetchOffsets);
    }

    /** Fetch answers for the partition lose their last {@code bytes} bytes (a partial trailing batch). */
    public synchronized void truncateFetches(String topic, int partition, int bytes) {
        partition(topic, partition).truncateNextFetchesBy = bytes;
    }

    /** The partition's log start offset (moved by retention or by delete-records). */
    public synchronized long logStartOffset(String topic, int partition) {
        return partition(topic, partition).logStartOffset;
    }

    /** Deletes whole batches below {@code offset}, as retention would. */
    public synchronized void deleteRecordsBefore(String topic, int partition, long offset) {
        partition(topic, partition).truncateBefore(offset);
    }

    /** The record count of every batch the partition received, in order. */
    public synchronized List<Integer> receivedBatches(String topic, int partition) {
        return List.copyOf(partition(topic, partition).receivedBatchRecordCounts);
    }

    /** Every stored batch of the partition, back to back, as a fetch from offset 0 would return them. */
    public synchronized byte[] storedBytes(String topic, int partition) {
        return partition(topic, partition).read(0, Integer.MAX_VALUE);
    }

    /** Produce requests received so far (all brokers). */
    public int produceRequests() {
        return produceRequests.get();
    }

    /** The next {@code n} metadata requests fail with gRPC UNAVAILABLE, as against a broker that is down. */
    public void failNextMetadata(int n) {
        failNextMetadata(n, BROKER_DOWN);
    }

    /** The next {@code n} metadata requests fail with {@code status} (UNAUTHENTICATED: as a listener refusing a login). */
    public void failNextMetadata(int n, Status status) {
        metadataFailure = status;
        failingMetadata.set(n);
    }

    /** Metadata requests broker {@code brokerId} answered. */
    public int metadataAnsweredBy(int brokerId) {
        return metadataAnsweredBy.getOrDefault(brokerId, 0);
    }

    /** Metadata requests received so far (all brokers). */
    public int metadataRequests() {
        return metadataRequests.get();
    }

    // ---- fetch sessions (KIP-227), off unless enabled: a broker without them answers session 0 ----

    /** A broker's fetch session: its next epoch and the partitions it reads, with the high watermark last sent. */
    static final class FakeSession {
        int epoch = 1;
        final Map<String, FetchRequest.FetchPartition> partitions = new LinkedHashMap<>();
        final Map<String, Long> sentHighWatermark = new java.util.HashMap<>();
    }

    volatile boolean fetchSessionsEnabled;
    /** Sessions by id (ids unique over all brokers). */
    final Map<Integer, FakeSession> fetchSessions = new java.util.HashMap<>();
    int nextSessionId = 100;
    /** Every fetch request as it came over the wire, in order. */
    final List<FetchRequest> fetchWire = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** From now on the brokers keep incremental fetch sessions, as a Raftline broker does. */
    public void enableFetchSessions() {
        fetchSessionsEnabled = true;
    }

    /** The brokers forget every session (as after a restart): the next incremental fetches are refused. */
    public synchronized void dropFetchSessions() {
        fetchSessions.clear();
    }

    /** Sessions the brokers hold. */
    public synchronized int fetchSessionCount() {
        return fetchSessions.size();
    }

    /** Every fetch request received so far, as sent. */
    public List<FetchRequest> fetchWire() {
        return List.copyOf(fetchWire);
    }

    synchronized ErrorCode nextAdminError() {
        ErrorCode c = adminErrors.pollFirst();
        return c == null ? ErrorCode.NONE : c;
    }

    static Error error(ErrorCode code, String message) {
        return Error.newBuilder().setCode(code).setMessage(message).build();
    }

    synchronized LeaderHint hint(FakePartition p) {
        return LeaderHint.newBuilder().setLeaderId(p.leader).setLeaderEpoch(p.leaderEpoch)
            .setEndpoint(HostPort.newBuilder().setHost("127.0.0.1").setPort(ports.get(p.leader))).build();
    }

    synchronized MetadataResponse metadata(MetadataRequest request) {
        metadataRequests.incrementAndGet();
        MetadataResponse.Builder b = MetadataResponse.newBuilder().setClusterId(CLUSTER_ID).setControllerId(controllerId);
        ports.forEach((id, port) -> b.addBrokers(BrokerInfo.newBuilder().setId(id).setHost("127.0.0.1").setPort(port)));
        List<String> names = request.getAllTopics() || request.getTopicsCount() == 0 ? new ArrayList<>(topics.keySet())
            : request.getTopicsList();
        for (String name : names) {
            List<FakePartition> parts = topics.get(name);
            if (parts == null) {
                b.addTopics(TopicMetadata.newBuilder().setName(name)
                    .setError(error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "Topic '" + name + "' does not exist")));
                continue;
            }
            TopicMetadata.Builder t = TopicMetadata.newBuilder().setName(name).setTopicId(ByteString.copyFrom(topicIds.get(name)))
                .setInternal(name.startsWith("__"));
            for (FakePartition p : parts) {
                t.addPartitions(PartitionMetadata.newBuilder().setPartition(p.partition).setLeader(p.leader)
                    .setLeaderEpoch(p.leaderEpoch).addAllReplicas(p.replicas).addAllIsr(p.replicas)
                    .addAllAddingReplicas(p.adding).addAllRemovingReplicas(p.removing));
            }
            b.addTopics(t);
        }
        return b.build();
    }

    @Override
    public void close() throws InterruptedException {
        for (Server s : servers.values()) {
            s.shutdownNow();
        }
        for (Server s : servers.values()) {
            s.awaitTermination(5, TimeUnit.SECONDS);
        }
        scheduler.shutdownNow();
    }
}
