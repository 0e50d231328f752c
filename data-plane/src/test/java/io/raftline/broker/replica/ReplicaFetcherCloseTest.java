package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogConfig;
import io.raftline.common.ManualTime;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import io.raftline.protocol.metadata.Endpoint;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing a fetcher (its leader led its last partition away, or the broker stops) while it applies a response must
 * not break the log: an interrupt at that moment closes the segment's file channel and takes the log dir offline.
 * A real leader on loopback answers the first fetch with one batch; the test holds the partition while the fetch
 * thread waits to append it, closes the fetcher, then lets the append run.
 */
class ReplicaFetcherCloseTest {

    @TempDir
    Path tmp;

    private final ManualTime time = new ManualTime();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final List<IOException> storageErrors = new CopyOnWriteArrayList<>();
    private Server leader;
    private Log log;

    @BeforeEach
    void startLeader() throws IOException {
        AtomicBoolean answered = new AtomicBoolean();
        leader = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new BrokerServiceGrpc.BrokerServiceImplBase() {
                @Override
                public StreamObserver<FetchRequest> fetch(StreamObserver<FetchResponse> out) {
                    return new StreamObserver<>() {
                        @Override
                        public void onNext(FetchRequest request) {
                            if (answered.compareAndSet(false, true)) {
                                out.onNext(FetchResponse.newBuilder().setCorrelationId(request.getCorrelationId())
                                    .addPartitions(FetchResponse.PartitionData.newBuilder().setTopic("t").setPartition(0)
                                        .setHighWatermark(10).setLogEndOffset(10)
                                        .setRecords(ByteString.copyFrom(PartitionFixture.batch(10))))
                                    .build());
                            }
                            // later fetches wait, as a leader with nothing new does
                        }

                        @Override
                        public void onError(Throwable t) {
                        }

                        @Override
                        public void onCompleted() {
                            out.onCompleted();
                        }
                    };
                }
            }).build().start();
        log = Log.open(tmp.resolve("t-0"), "t", 0, new byte[16], LogConfig.fromProperties(Map.of(), Map.of()), 0, false,
            time, scheduler, (l, e) -> storageErrors.add(e));
    }

    @AfterEach
    void stop() {
        log.close();
        leader.shutdownNow();
        scheduler.shutdownNow();
    }

    @Test
    void closingWhileAResponseIsBeingAppliedLeavesTheLogWritable() throws Exception {
        Partition partition = new Partition(new TopicPartition("t", 0), 2, time);
        partition.makeFollower(Uuid.fromBytes(new byte[16]),
            new PartitionRegistration(List.of(1, 2), List.of(1, 2), 1, 0, 0, List.of(), List.of(), false), log, 0);
        Endpoint endpoint = Endpoint.newBuilder().setName("broker").setHost("127.0.0.1").setPort(leader.getPort()).build();
        ReplicaFetcher fetcher = new ReplicaFetcher(2, () -> 7, 1, endpoint,
            new ReplicaFetcherManager.Settings(500, 1, 1 << 20, 10 << 20, 100, 30_000), time, ReplicationQuotas.none(time));
        Object partitionLock = lockOf(partition);
        Thread closer = new Thread(fetcher::close, "closer");
        synchronized (partitionLock) {
            fetcher.addPartition(new TopicPartition("t", 0), 0, partition);
            fetcher.start();
            Thread fetchThread = thread("replica-fetcher-2-from-1");
            await(() -> fetchThread.getState() == Thread.State.BLOCKED, "the fetch thread to wait for the partition");
            closer.start();
            await(() -> closer.getState() == Thread.State.TIMED_WAITING, "close() to wait for the fetch thread");
        }
        closer.join(Duration.ofSeconds(30).toMillis());
        assertThat(closer.isAlive()).as("close() returned").isFalse();

        assertThat(storageErrors).as("storage errors").isEmpty();
        assertThat(log.logEndOffset()).as("the response applied before the thread ended").isEqualTo(10);
        partition.appendAsFollower(PartitionFixture.batchAt(10, 5), 10, 15, 0, 0);
        assertThat(log.logEndOffset()).as("the log still takes appends").isEqualTo(15);
        assertThat(storageErrors).isEmpty();
    }

    private static Object lockOf(Partition partition) throws ReflectiveOperationException {
        Field f = Partition.class.getDeclaredField("lock");
        f.setAccessible(true);
        return f.get(partition);
    }

    private static Thread thread(String name) {
        return Awaitility.await("a thread named " + name).atMost(Duration.ofSeconds(30)).until(
            () -> Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst(),
            Optional::isPresent).orElseThrow();
    }

    private static void await(BooleanSupplier condition, String what) {
        Awaitility.await(what).atMost(Duration.ofSeconds(30)).until(condition::getAsBoolean);
    }
}
