package io.raftline.bench;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.tests.cluster.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * How long a group of N consumers takes to rebalance when one more joins, eager ({@code range}) against cooperative
 * ({@code cooperative-sticky}), against a Raftline cluster. The time runs from the joiner's {@code subscribe} until
 * every partition has exactly one owner again and the joiner owns its share (for cooperative, that includes the second
 * rebalance that hands the revoked partitions over). The members poll every 20 ms.
 *
 * <p>Run: {@code java -cp <tests classpath> io.raftline.bench.RebalanceBench [bootstrap|-] [members] [partitions] [rounds]};
 * with {@code -} it starts a 3-node test cluster of its own.
 */
public final class RebalanceBench {

    private RebalanceBench() {
    }

    /** A member polling on its own thread; records its assignment after every poll. */
    private static final class Member {
        final Thread thread;
        volatile boolean running = true;
        volatile Set<TopicPartition> owned = Set.of();

        Member(String bootstrap, String group, String topic, String strategy, String id) {
            Properties p = new Properties();
            p.setProperty("bootstrap.servers", bootstrap);
            p.setProperty("group.id", group);
            p.setProperty("client.id", id);
            p.setProperty("partition.assignment.strategy", strategy);
            p.setProperty("session.timeout.ms", "10000");
            p.setProperty("heartbeat.interval.ms", "500");
            p.setProperty("enable.auto.commit", "false");
            thread = new Thread(() -> {
                try (RaftlineConsumer<byte[], byte[]> c = new RaftlineConsumer<>(p, new ByteArrayDeserializer(),
                    new ByteArrayDeserializer())) {
                    c.subscribe(List.of(topic));
                    while (running) {
                        c.poll(Duration.ofMillis(20));
                        owned = Set.copyOf(c.assignment());
                    }
                }
            }, "bench-" + id);
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join(30_000);
        }
    }

    private static boolean complete(List<Member> members, int partitions) {
        Set<TopicPartition> all = new HashSet<>();
        int total = 0;
        for (Member m : members) {
            if (m.owned.isEmpty()) {
                return false;
            }
            all.addAll(m.owned);
            total += m.owned.size();
        }
        return all.size() == partitions && total == partitions;
    }

    /** One measurement: N members settle, one joins; returns the ms until the group settled again. */
    static long measure(String bootstrap, String topic, int partitions, int n, String strategy, String group)
        throws InterruptedException {
        List<Member> members = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                members.add(new Member(bootstrap, group, topic, strategy, "m" + i));
            }
            TestCluster.await(() -> complete(members, partitions), Duration.ofSeconds(120), n + " members to settle");
            long start = System.nanoTime();
            Member joiner = new Member(bootstrap, group, topic, strategy, "joiner");
            List<Member> all = new ArrayList<>(members);
            all.add(joiner);
            TestCluster.await(() -> complete(all, partitions), Duration.ofSeconds(120), "the group to settle with the joiner");
            long took = System.nanoTime() - start;
            members.add(joiner);
            return TimeUnit.NANOSECONDS.toMillis(took);
        } finally {
            for (Member m : members) {
                m.stop();
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
            for (String strategy : List.of("range", "cooperative-sticky")) {
                for (int r = 0; r < rounds; r++) {
                    long ms = measure(bootstrap, topic, partitions, n, strategy, "bench-" + strategy + "-" + r);
                    System.out.printf("{\"strategy\":\"%s\",\"members\":%d,\"partitions\":%d,\"round\":%d,\"rebalanceMs\":%d}%n",
                        strategy, n, partitions, r, ms);
                }
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }
}
