package io.raftline.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor;
import io.raftline.client.consumer.internals.group.ConsumerCoordinator;
import io.raftline.client.consumer.internals.group.GroupHost;
import io.raftline.client.consumer.internals.group.GroupMembershipConfig;
import io.raftline.client.consumer.internals.group.GroupRebalanceListener;
import io.raftline.common.SystemTime;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * How long a group of 10 consumers takes to rebalance when an 11th joins, eager ("range") against cooperative
 * ("cooperative-sticky"), with Kafka 4's consumer defaults (session 45 s, heartbeat 3 s). One broker in this JVM,
 * real sockets. Measured: from the newcomer's first poll until every member is stable in one generation with all
 * partitions assigned; and the longest time one of the 10 old members held no partition at all (eager: every one of
 * them stops; cooperative: none should). Opt-in: {@code -Draftline.bench=true}; prints one line per run.
 */
@EnabledIfSystemProperty(named = "raftline.bench", matches = "true")
class RebalanceTimeBenchTest {

    private static final int PARTITIONS = 60;
    private static final int RUNS = 3;

    @Test
    void tenConsumersOneJoins() throws Exception {
        for (String assignor : List.of("range", "cooperative-sticky")) {
            List<Long> totals = new ArrayList<>();
            List<Long> pauses = new ArrayList<>();
            for (int run = 0; run < RUNS; run++) {
                long[] r = oneRun(assignor, run);
                totals.add(r[0]);
                pauses.add(r[1]);
                System.out.printf("rebalance-bench assignor=%s run=%d rebalanceMs=%d longestPauseOfOldMemberMs=%d%n",
                    assignor, run, r[0], r[1]);
            }
            totals.sort(Long::compare);
            pauses.sort(Long::compare);
            System.out.printf("rebalance-bench assignor=%s median rebalanceMs=%d longestPauseMs=%d%n", assignor,
                totals.get(RUNS / 2), pauses.get(RUNS / 2));
        }
    }

    /** A consumer polling every 100 ms, tracking when it held nothing. */
    private static final class Consumer implements GroupHost, GroupRebalanceListener {
        final ConsumerCoordinator client;
        final ScheduledExecutorService poller;
        final int port;
        volatile boolean running = true;
        final AtomicLong emptySinceMs = new AtomicLong(-1);
        final AtomicLong longestEmptyMs = new AtomicLong();
        volatile boolean measuring;

        Consumer(String name, String assignor, int port) {
            this.port = port;
            client = new ConsumerCoordinator(new GroupMembershipConfig("bench", name, 45_000, 3000, 300_000, 30_000, 100),
                this, this, List.of(ConsumerPartitionAssignor.forName(assignor)), SystemTime.INSTANCE);
            // The application's poll loop: poll, then again 5 ms later.
            poller = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "bench-" + name);
                t.setDaemon(true);
                return t;
            });
            poller.scheduleWithFixedDelay(() -> {
                try {
                    if (running) {
                        client.poll(100);
                    }
                } catch (RuntimeException e) {
                    System.err.println(name + ": " + e);
                }
            }, 0, 5, TimeUnit.MILLISECONDS);
        }

        @Override
        public Set<String> subscription() {
            return Set.of("t");
        }

        @Override
        public List<Node> brokers() {
            return List.of(new Node(1, "127.0.0.1", port, null));
        }

        @Override
        public Map<String, Integer> partitionCounts(Set<String> topics, long timeoutMs) {
            return topics.contains("t") ? Map.of("t", PARTITIONS) : Map.of();
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (client.assignment().size() == partitions.size()) {
                emptySinceMs.set(System.nanoTime() / 1_000_000);
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            long since = emptySinceMs.getAndSet(-1);
            if (since >= 0 && measuring && !partitions.isEmpty()) {
                longestEmptyMs.accumulateAndGet(System.nanoTime() / 1_000_000 - since, Math::max);
            }
        }

        void close() throws InterruptedException {
            running = false;
            poller.shutdown();
            poller.awaitTermination(5, TimeUnit.SECONDS);
            client.close(5000);
        }
    }

    private long[] oneRun(String assignor, int run) throws Exception {
        InMemoryOffsetsTopic topic = new InMemoryOffsetsTopic(1);
        GroupConfig config = new GroupConfig(6000, 1_800_000, 0, 3_600_000L, 600_000L, 5000, 4096);
        try (ExecutorGroupScheduler scheduler = new ExecutorGroupScheduler("bench-timer")) {
            GroupCoordinator coordinator = new GroupCoordinator(1, config, topic, SystemTime.INSTANCE, scheduler, Runnable::run,
                new SplittableRandom(run));
            Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(GroupRpcService.serviceDefinition(coordinator, io.raftline.broker.security.RequestAuthorizer.OFF)).build().start();
            topic.setLeader(0, 1);
            topic.setEndpoint(1, "127.0.0.1", server.getPort());
            coordinator.onBecomeLeader(0, 1);
            List<Consumer> group = new ArrayList<>();
            try {
                for (int i = 0; i < 10; i++) {
                    group.add(new Consumer("c" + i, assignor, server.getPort()));
                }
                awaitStable(group);
                group.forEach(c -> c.measuring = true);
                long start = System.nanoTime();
                group.add(new Consumer("c10", assignor, server.getPort()));
                awaitStable(group);
                long totalMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                long pause = group.subList(0, 10).stream().mapToLong(c -> c.longestEmptyMs.get()).max().orElse(0);
                return new long[] {totalMs, pause};
            } finally {
                for (Consumer c : group) {
                    c.close();
                }
                coordinator.shutdown();
                server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    private static void awaitStable(List<Consumer> group) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5)).until(() -> {
            Set<Integer> generations = new HashSet<>();
            Set<TopicPartition> all = new HashSet<>();
            for (Consumer c : group) {
                if (c.client.rejoinNeeded() || c.client.state() != ConsumerCoordinator.MemberState.STABLE) {
                    return false;
                }
                generations.add(c.client.generation().generationId());
                all.addAll(c.client.assignment());
            }
            return generations.size() == 1 && all.size() == PARTITIONS;
        });
        assertThat(group).allSatisfy(c -> assertThat(c.client.assignment().size()).isBetween(PARTITIONS / group.size(),
            (PARTITIONS + group.size() - 1) / group.size()));
    }
}
