package io.raftline.metadata.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.raftline.common.SystemTime;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import io.raftline.protocol.controller.BrokerHeartbeatResponse;
import io.raftline.protocol.controller.ControllerServiceGrpc;
import io.raftline.protocol.controller.RegisterBrokerRequest;
import io.raftline.protocol.controller.RegisterBrokerResponse;
import io.raftline.protocol.metadata.Endpoint;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A broker's heartbeats against a controller that answers each one 800 ms late (as one busy committing writes may;
 * still inside the heartbeat's 1 s deadline): they must keep arriving about every interval, not one interval after
 * each late answer, or a live broker falls silent for most of its session.
 */
@Timeout(60)
class HeartbeatPacingTest {

    private static final long ANSWER_DELAY_MS = 800;
    private static final long INTERVAL_MS = 250;

    private final List<Long> arrivalsNs = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService delayer = Executors.newSingleThreadScheduledExecutor();
    private Server server;
    private ControllerChannel channel;
    private MetadataFollower follower;
    private BrokerLifecycleManager lifecycle;

    @BeforeEach
    void start() throws Exception {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new ControllerServiceGrpc.ControllerServiceImplBase() {
                @Override
                public void registerBroker(RegisterBrokerRequest req, StreamObserver<RegisterBrokerResponse> obs) {
                    obs.onNext(RegisterBrokerResponse.newBuilder().setError(Error.newBuilder().setCode(ErrorCode.NONE))
                        .setBrokerEpoch(5).build());
                    obs.onCompleted();
                }

                @Override
                public void brokerHeartbeat(BrokerHeartbeatRequest req, StreamObserver<BrokerHeartbeatResponse> obs) {
                    arrivalsNs.add(System.nanoTime());
                    delayer.schedule(() -> {
                        obs.onNext(BrokerHeartbeatResponse.newBuilder().setError(Error.newBuilder().setCode(ErrorCode.NONE))
                            .setIsFenced(false).build());
                        obs.onCompleted();
                    }, ANSWER_DELAY_MS, TimeUnit.MILLISECONDS);
                }
            }).build().start();
        List<InetSocketAddress> endpoints = List.of(new InetSocketAddress("127.0.0.1", server.getPort()));
        channel = new ControllerChannel(endpoints, SystemTime.INSTANCE, 10_000);
        follower = new MetadataFollower(1, endpoints, SystemTime.INSTANCE);
        lifecycle = new BrokerLifecycleManager(1, "c", List.of(Endpoint.newBuilder().setName("broker").setHost("127.0.0.1")
            .setPort(1).build()), "", channel, follower, INTERVAL_MS, SystemTime.INSTANCE);
    }

    @AfterEach
    void stop() throws Exception {
        lifecycle.close();
        follower.close();
        channel.close();
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        delayer.shutdownNow();
    }

    @Test
    void heartbeatsKeepTheirPaceWhenAnswersComeLate() {
        lifecycle.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> arrivalsNs.size() >= 9
            && lifecycle.state() == BrokerLifecycleManager.State.ACTIVE);
        long spanMs = (arrivalsNs.get(8) - arrivalsNs.get(0)) / 1_000_000;
        System.out.println("9 heartbeats in " + spanMs + " ms with answers " + ANSWER_DELAY_MS + " ms late (interval "
            + INTERVAL_MS + " ms)");
        long maxGapMs = 0;
        for (int i = 1; i < 9; i++) {
            maxGapMs = Math.max(maxGapMs, (arrivalsNs.get(i) - arrivalsNs.get(i - 1)) / 1_000_000);
        }
        System.out.println("longest gap between heartbeats: " + maxGapMs + " ms");
        // Paced by answers, 9 heartbeats take 8 x (800 + 250) = 8.4 s; paced by the interval about 2 s.
        assertThat(spanMs).isLessThan(6000);
        assertThat(lifecycle.state()).isEqualTo(BrokerLifecycleManager.State.ACTIVE);
    }
}
