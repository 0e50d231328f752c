package io.raftline.bench;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.common.SystemTime;
import io.raftline.tests.cluster.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * How long a group of N consumers takes to rebalance when one more joins, eager ({@code range}) against cooperative
 * ({@code cooperative-sticky}). The time runs from the joiner's {@code subscribe} until every partition has exactly
 * one owner again and every member, the joiner included, owns at least one (for cooperative, that includes the second
 * rebalance that hands the revoked partitions over). The members poll every 20 ms. The same measurement runs against
 * Kafka in {@link KafkaRebalanceBench}, with Kafka's own consumer behind the {@link MemberFactory}.
 *
 * <p>Run: {@code java -cp <tests classpath> io.raftline.bench.RebalanceBench [bootstrap|-] [members] [partitions] [rounds]};
 * with {@code -} it starts a 3-node test cluster of its own. One JSON line per measurement on stdout.
 */
public final class RebalanceBench {

    /** The settings every member of every run uses, on both systems. */
    static final String SESSION_TIMEOUT_MS = "10000";
    static final String HEARTBEAT_INTERVAL_MS = "500";
    static final Duration POLL = Duration.ofMillis(20);

    private RebalanceBench() {
    }

    /** A group member polling on a thread of its own; {@link #owned()} is its assignment after its last poll. */
    interface Member {
        /** Its partitions as "topic-partition" strings. */
        Set<String> owned();

        /** Stops polling and closes the consumer (leaving the group). */
        void stop() throws InterruptedException;
    }

    /** Starts a member of {@code group} subscribed to {@code topic}, with the assignor {@code strategy}. */
    interface MemberFactory {
        Member start(String group, String topic, String strategy, String id);
    }

    /** What a member polls with: one poll, then the partitions it owns (as "topic-partition"). */
    interface Poller extends AutoCloseable {
        Set<String> pollOnce();

        @Override
        void close();
    }

    /** The consumer settings both systems' members use. */
    static Properties memberProperties(String bootstrap, String group, String strategy, String id) {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", bootstrap);
        p.setProperty("group.id", group);
        p.setProperty("client.id", id);
        p.setProperty("partition.assignment.strategy", strategy);
        p.setProperty("session.timeout.ms", SESSION_TIMEOUT_MS);
        p.setProperty("heartbeat.interval.ms", HEARTBEAT_INTERVAL_MS);
        p.setProperty("enable.auto.commit", "false");
        return p;
    }

    /** A {@link Member} polling on its own thread until stopped, whatever the consumer behind {@code open}. */
    static final class PollingMember implements Member {
        private final Thread thread;
        private volatile boolean running = true;
        private volatile Set<String> owned = Set.of();

        PollingMember(String threadName, Supplier<Poller> open) {
            thread = new Thread(() -> {
                try (Poller poller = open.get()) {
                    while (running) {
                        owned = poller.pollOnce();
                    }
                }
            }, threadName);
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public Set<String> owned() {
            return owned;
        }

        @Override
        public void stop() throws InterruptedException {
            running = false;
            thread.join(30_000);
        }
    }

    /** A Raftline consumer as a {@link Member}. */
    static Member raftlineMember(String bootstrap, String group, String topic, String strategy, String id) {
        Properties p = memberProperties(bootstrap, group, strategy, id);
        return new PollingMember("bench-" + id, () -> {
            RaftlineConsumer<byte[], byte[]> c = new RaftlineConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            c.subscribe(List.of(topic));
            return new Poller() {
                @Override
                public Set<String> pollOnce() {
                    c.poll(POLL);
                    return c.assignment().stream().map(TopicPartition::toString).collect(Collectors.toUnmodifiableSet());
                }

                @Override
                public void close() {
                    c.close();
                }
            };
        });
    }

    private static boolean complete(List<Member> members, int partitions) {
        Set<String> all = new HashSet<>();
        int total = 0;
        for (Member m : members) {
            Set<String> owned = m.owned();
            if (owned.isEmpty()) {
                return false;
            }
            all.addAll(owned);
            total += owned.size();
        }
        return all.size() == partitions && total == partitions;
    }

    /** One measurement: N members settle, one joins; returns the ms until the group settled again. */
    static long measure(MemberFactory factory, String topic, int partitions, int n, String strategy, String group)
        throws InterruptedException {
        List<Member> members = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                members.add(factory.start(group, topic, strategy, "m" + i));
            }
            TestCluster.await(() -> complete(members, partitions), Duration.ofSeconds(120), n + " members to settle");
            long start = SystemTime.INSTANCE.nanoseconds();
            Member joiner = factory.start(group, topic, strategy, "joiner");
            List<Member> all = new ArrayList<>(members);
            all.add(joiner);
            members.add(joiner);
            TestCluster.await(() -> complete(all, partitions), Duration.ofSeconds(120), "the group to settle with the joiner");
            return TimeUnit.NANOSECONDS.toMillis(SystemTime.INSTANCE.nanoseconds() - start);
        } finally {
            for (Member m : members) {
                m.stop();
            }
        }
    }

    /** Runs {@code rounds} measurements per strategy (eager first) and prints one JSON line each. */
    static void run(String system, MemberFactory factory, String topic, int n, int partitions, int rounds,
                    List<String> strategies) throws InterruptedException {
        for (String strategy : strategies) {
            for (int r = 0; r < rounds; r++) {
                String shortName = strategy.substring(strategy.lastIndexOf('.') + 1);
                long ms = measure(factory, topic, partitions, n, strategy, "bench-" + shortName + "-" + r);
                System.out.printf("{\"system\":\"%s\",\"strategy\":\"%s\",\"members\":%d,\"partitions\":%d,\"round\":%d,"
                    + "\"rebalanceMs\":%d}%n", system, shortName, n, partitions, r, ms);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args.length > 0 ? args[0] : "-";
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        TestCluster cluster = null;
        if (bootstrap.equals("-")) {
            cluster = TestCluster.builder().combined(3).config("group.initial.rebalance.delay.ms", "0")
                .config("offsets.topic.num.partitions", "6").start();
            bootstrap = cluster.bootstrap();
        }
        try {
            Properties p = new Properties();
            p.setProperty("bootstrap.servers", bootstrap);
            String topic = "rebalance-bench";
            try (Admin admin = Admin.create(p)) {
                admin.createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty()))).all().get(60, TimeUnit.SECONDS);
            }
            String bs = bootstrap;
            run("raftline", (group, t, strategy, id) -> raftlineMember(bs, group, t, strategy, id), topic, n, partitions, rounds,
                List.of("range", "cooperative-sticky"));
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }
}
