package io.raftline.cli.command.top;

import io.raftline.cli.output.Table;
import io.raftline.client.admin.BrokerDescription;
import io.raftline.client.admin.ClusterOverview;
import io.raftline.client.admin.ClusterOverview.GroupOffset;
import io.raftline.client.admin.ClusterOverview.GroupView;
import io.raftline.client.admin.ClusterOverview.PartitionView;
import io.raftline.client.common.TopicPartition;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One frame of {@code raftline top}, computed from two {@link ClusterOverview}s taken {@code intervalMs} apart
 * (the first frame has no earlier one): a summary line, the brokers, the busiest partitions, the under-replicated
 * partitions and the groups' lag. Busiest means most records appended per second between the two readings (the
 * growth of the leader's log end offset); with no earlier reading, the largest log end offset. Pure.
 */
public final class TopView {

    /** A partition's appends per second between two readings; null without an earlier one. */
    public record Busy(PartitionView partition, Double recordsPerSec) {
    }

    private TopView() {
    }

    /** Busiest first, at most {@code rows}; partitions whose leader did not answer are left out. */
    public static List<Busy> busiest(ClusterOverview now, ClusterOverview before, long intervalMs, int rows) {
        Map<TopicPartition, Long> earlier = new HashMap<>();
        if (before != null) {
            before.partitions().forEach(p -> {
                if (p.logEndOffset() != null) {
                    earlier.put(new TopicPartition(p.topic(), p.partition()), p.logEndOffset());
                }
            });
        }
        return now.partitions().stream().filter(p -> p.logEndOffset() != null)
            .map(p -> {
                Long e = earlier.get(new TopicPartition(p.topic(), p.partition()));
                Double rate = before == null || e == null || intervalMs <= 0 ? null
                    : Math.max(0, p.logEndOffset() - e) * 1000.0 / intervalMs;
                return new Busy(p, rate);
            })
            .sorted(Comparator.comparing((Busy b) -> b.recordsPerSec() == null ? 0.0 : b.recordsPerSec()).reversed()
                .thenComparing(Comparator.comparing((Busy b) -> b.partition().logEndOffset()).reversed())
                .thenComparing(b -> b.partition().topic()).thenComparingInt(b -> b.partition().partition()))
            .limit(rows).toList();
    }

    /** Leaderships per broker id. */
    static Map<Integer, Long> leaderCounts(ClusterOverview o) {
        return o.partitions().stream().filter(p -> p.leader() >= 0)
            .collect(Collectors.groupingBy(PartitionView::leader, Collectors.counting()));
    }

    /** The frame as text lines. */
    public static String render(ClusterOverview now, ClusterOverview before, long intervalMs, int rows) {
        StringWriter text = new StringWriter();
        PrintWriter out = new PrintWriter(text);
        List<PartitionView> parts = now.partitions();
        List<PartitionView> under = parts.stream().filter(PartitionView::underReplicated).toList();
        long offline = parts.stream().filter(PartitionView::offline).count();
        long active = now.brokers().stream().filter(b -> b.state().equals("active")).count();
        out.printf(Locale.ROOT, "raftline top - cluster %s, controller %d, quorum leader %d term %d, brokers %d (%d active), "
                + "partitions %d (%d under-replicated, %d offline), groups %d%n", now.clusterId(), now.controllerId(),
            now.quorum().leaderId(), now.quorum().term(), now.brokers().size(), active, parts.size(), under.size(), offline,
            now.groups().size());

        out.println();
        out.println("BROKERS");
        Map<Integer, Long> leaders = leaderCounts(now);
        Table brokers = new Table("ID", "ENDPOINT", "RACK", "STATE", "LEADERS");
        for (BrokerDescription b : now.brokers()) {
            brokers.row(b.id(), b.endpoint(), b.rack(), b.state(), leaders.getOrDefault(b.id(), 0L));
        }
        brokers.print(out);

        out.println();
        out.println(before == null ? "BUSIEST PARTITIONS (by log end offset; rates from the next refresh)"
            : String.format(Locale.ROOT, "BUSIEST PARTITIONS (records/s over the last %.1f s)", intervalMs / 1000.0));
        Table busy = new Table("TOPIC", "PARTITION", "LEADER", "ISR", "RECORDS/S", "LOG-END", "SIZE");
        for (Busy b : busiest(now, before, intervalMs, rows)) {
            PartitionView p = b.partition();
            busy.row(p.topic(), p.partition(), leader(p), join(p.isr()),
                b.recordsPerSec() == null ? null : String.format(Locale.ROOT, "%.1f", b.recordsPerSec()), p.logEndOffset(),
                p.sizeBytes());
        }
        busy.print(out);

        out.println();
        out.println("UNDER-REPLICATED PARTITIONS" + (under.isEmpty() ? ": none" : ""));
        if (!under.isEmpty()) {
            Table t = new Table("TOPIC", "PARTITION", "LEADER", "REPLICAS", "ISR", "OSR");
            under.stream().limit(rows).forEach(p -> t.row(p.topic(), p.partition(), leader(p), join(p.replicas()),
                join(p.isr()), join(p.osr())));
            t.print(out);
            if (under.size() > rows) {
                out.println("... and " + (under.size() - rows) + " more");
            }
        }

        out.println();
        out.println("GROUP LAG" + (now.groupsError() != null ? ": cannot list the groups: " + now.groupsError()
            : now.groups().isEmpty() ? ": no groups" : ""));
        if (!now.groups().isEmpty()) {
            Table g = new Table("GROUP", "STATE", "COORDINATOR", "MEMBERS", "LAG", "MOST-LAGGING");
            now.groups().stream().sorted(Comparator.comparingLong(GroupView::totalLag).reversed().thenComparing(GroupView::group))
                .limit(rows).forEach(v -> g.row(v.group(), v.state(), v.coordinator(), v.members().size(), v.totalLag(),
                    v.error() != null ? "error: " + v.error() : mostLagging(v)));
            g.print(out);
        }
        out.flush();
        return text.toString();
    }

    private static String mostLagging(GroupView g) {
        return g.offsets().stream().filter(o -> o.lag() != null && o.lag() > 0)
            .max(Comparator.comparingLong(GroupOffset::lag))
            .map(o -> o.topic() + "-" + o.partition() + " (" + o.lag() + ")").orElse(null);
    }

    private static Object leader(PartitionView p) {
        return p.leader() < 0 ? "none" : p.leader();
    }

    private static String join(List<Integer> ids) {
        return ids.isEmpty() ? null : ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
