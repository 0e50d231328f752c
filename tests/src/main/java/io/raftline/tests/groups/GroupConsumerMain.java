package io.raftline.tests.groups;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.ConsumerRecords;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.common.SystemTime;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A group member in a process of its own, for tests that kill it with SIGKILL. At-least-once: it prints every record
 * it polled, then commits synchronously. Lines on stdout: {@code A t-0,t-3} when its assignment changes, {@code R
 * partition offset value} per record, {@code C} after each commit, and about every second a status line {@code S
 * p0@pos ...} with its position in each partition it owns (for the diagnosis of a failed test). Runs until killed or stdin closes.
 *
 * <p>Arguments: bootstrap group topic clientId sessionTimeoutMs [assignor]
 */
public final class GroupConsumerMain {

    private GroupConsumerMain() {
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", args[0]);
        p.setProperty("group.id", args[1]);
        p.setProperty("client.id", args[3]);
        p.setProperty("session.timeout.ms", args[4]);
        p.setProperty("heartbeat.interval.ms", Integer.toString(Math.max(100, Integer.parseInt(args[4]) / 6)));
        p.setProperty("auto.offset.reset", "earliest");
        p.setProperty("enable.auto.commit", "false");
        if (args.length > 5) {
            p.setProperty("partition.assignment.strategy", args[5]);
        }
        Thread stdinWatch = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // wait for EOF: the test closed our stdin, so exit
                }
            } catch (java.io.IOException ignored) {
                // exit as on EOF
            }
            Runtime.getRuntime().halt(0);
        }, "stdin-watch");
        stdinWatch.setDaemon(true);
        stdinWatch.start();
        try (RaftlineConsumer<String, String> c = new RaftlineConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            c.subscribe(List.of(args[2]));
            Set<TopicPartition> last = null;
            long nextStatus = 0;
            while (true) {
                ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(200));
                Set<TopicPartition> now = new TreeSet<>((a, b) -> a.topic().equals(b.topic())
                    ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()));
                now.addAll(c.assignment());
                if (!now.equals(last)) {
                    out.println("A " + now.stream().map(tp -> tp.topic() + "-" + tp.partition()).collect(Collectors.joining(",")));
                    last = now;
                }
                if (SystemTime.INSTANCE.nanoseconds() - nextStatus > 0) {
                    nextStatus = SystemTime.INSTANCE.nanoseconds() + 1_000_000_000L;
                    out.println("S " + status(c, now));
                }
                for (ConsumerRecord<String, String> r : records) {
                    out.println("R " + r.partition() + " " + r.offset() + " " + r.value());
                }
                out.flush();
                if (!records.isEmpty()) {
                    try {
                        c.commitSync();
                        out.println("C");
                    } catch (RuntimeException e) {
                        // A rebalance took partitions away: their records come again to the new owner (at least once).
                        out.println("E " + e.getClass().getSimpleName());
                    }
                    out.flush();
                }
            }
        }
    }

    private static String status(RaftlineConsumer<String, String> c, Set<TopicPartition> owned) {
        StringBuilder b = new StringBuilder();
        for (TopicPartition tp : owned) {
            String position;
            try {
                position = Long.toString(c.position(tp, Duration.ofMillis(100)));
            } catch (RuntimeException e) {
                position = "?"; // not known yet: a diagnostic line must not end the member
            }
            b.append(" p").append(tp.partition()).append('@').append(position);
        }
        return b.toString().trim();
    }
}
