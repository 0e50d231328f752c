package io.raftline.broker.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogManager;
import io.raftline.broker.replica.Partition;
import io.raftline.broker.replica.ReplicaManager;
import io.raftline.common.Time;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Per-partition, per-topic and per-log-dir gauges, refreshed by {@link #refresh()} (the broker calls it every few
 * seconds, so a scrape never walks the logs). A partition's rows disappear at the first refresh after it left the
 * broker. Per-partition rows ({@code topic,partition} labels) are exported only while the broker holds at most
 * {@code metrics.partition.series.max} partitions; above it only the per-topic aggregates are, and
 * {@code raftline_partition_series_capped} is 1.
 *
 * <p>Every broker's own replica: log start and end offset, size and segments. The leader only: high watermark,
 * ISR size, and each follower's lag in records (leader's end offset minus the follower's) and in time (now minus
 * when the follower was last caught up, Kafka's replica.lag.time.max.ms rule).
 */
public final class PartitionMetrics {

    private final ReplicaManager replicaManager;
    private final LogManager logManager;
    private final Time time;
    private final int maxPartitionSeries;
    private final Series logStartOffset;
    private final Series logEndOffset;
    private final Series logSize;
    private final Series logSegments;
    private final Series highWatermark;
    private final Series isrSize;
    private final Series lagRecords;
    private final Series lagSeconds;
    private final Series topicSize;
    private final Series topicPartitions;
    private final Series topicLagRecords;
    private final Series topicLagSeconds;
    private final MultiGauge dirUsed;
    private final MultiGauge dirFree;
    private final MultiGauge dirTotal;
    private final MultiGauge dirOnline;
    private volatile boolean capped;

    public PartitionMetrics(MeterRegistry registry, ReplicaManager replicaManager, LogManager logManager, Time time,
                            int maxPartitionSeries) {
        this.replicaManager = replicaManager;
        this.logManager = logManager;
        this.time = time;
        this.maxPartitionSeries = maxPartitionSeries;
        logStartOffset = series(registry, "raftline.log.start.offset", "Log start offset of this broker's replica");
        logEndOffset = series(registry, "raftline.log.end.offset", "Log end offset of this broker's replica");
        logSize = series(registry, "raftline.log.size.bytes", "Bytes on disk of this broker's replica");
        logSegments = series(registry, "raftline.log.segments", "Segments of this broker's replica");
        highWatermark = series(registry, "raftline.partition.high.watermark", "On the leader: the partition's high watermark");
        isrSize = series(registry, "raftline.partition.isr.size", "On the leader: replicas in the ISR");
        lagRecords = series(registry, "raftline.replica.lag.messages", "On the leader: its log end offset minus each follower's");
        lagSeconds = series(registry, "raftline.replica.lag.seconds",
            "On the leader: how long ago each follower was last caught up");
        topicSize = series(registry, "raftline.topic.log.size.bytes", "Bytes on disk of this broker's replicas of the topic");
        topicPartitions = series(registry, "raftline.topic.partitions.led", "Partitions of the topic this broker leads");
        topicLagRecords = series(registry, "raftline.topic.replica.lag.messages.max",
            "On the leaders here: the largest follower lag in records over the topic's partitions");
        topicLagSeconds = series(registry, "raftline.topic.replica.lag.seconds.max",
            "On the leaders here: the largest follower lag in time over the topic's partitions");
        dirUsed = gauge(registry, "raftline.log.dir.used.bytes", "Bytes of the partition logs in each log dir");
        dirFree = gauge(registry, "raftline.log.dir.free.bytes", "Bytes free for this process on each log dir's file system");
        dirTotal = gauge(registry, "raftline.log.dir.total.bytes", "Size of each log dir's file system");
        dirOnline = gauge(registry, "raftline.log.dir.online", "1 while a log dir is online, 0 once it went offline");
        Gauge.builder("raftline.partition.series.capped", this, m -> m.capped ? 1 : 0)
            .description("1 when this broker holds more partitions than metrics.partition.series.max and exports only"
                + " per-topic aggregates").register(registry);
    }

    private static MultiGauge gauge(MeterRegistry registry, String name, String description) {
        return MultiGauge.builder(name).description(description).register(registry);
    }

    private static Series series(MeterRegistry registry, String name, String description) {
        return new Series(gauge(registry, name, description));
    }

    /** Whether per-partition series are exported for a broker holding {@code partitions} partitions. */
    static boolean perPartitionSeries(int partitions, int maxPartitionSeries) {
        return partitions <= maxPartitionSeries;
    }

    /** A follower's lag in time: how long ago it was last caught up, never negative (clocks step back). */
    static double lagSeconds(long nowMs, long lastCaughtUpMs) {
        return Math.max(0, nowMs - lastCaughtUpMs) / 1000.0;
    }

    /** A follower's lag in records: 0..leader's end; a follower not heard from yet counts as the whole log. */
    static long lagRecords(long leaderEndOffset, long followerEndOffset) {
        return followerEndOffset < 0 ? leaderEndOffset : Math.max(0, leaderEndOffset - followerEndOffset);
    }

    /**
     * Re-reads every partition and log dir into the gauges. Only a change in which rows exist registers a gauge's
     * rows again; otherwise the values are set in place (registering 10,000 topics' rows with the registry every
     * refresh was a fifth of an idle broker's CPU).
     */
    public void refresh() {
        long nowMs = time.milliseconds();
        Collection<Partition> partitions = replicaManager.partitions();
        boolean perPartition = perPartitionSeries(partitions.size(), maxPartitionSeries);
        Map<String, TopicTotals> topics = new TreeMap<>();
        Map<Path, Long> usedByDir = new HashMap<>();
        for (Partition p : partitions) {
            Log log = p.log();
            if (log == null || log.isOffline()) {
                continue;
            }
            String topic = p.topicPartition().topic();
            String partition = Integer.toString(p.topicPartition().partition());
            String key = topic + '\u0000' + partition;
            Supplier<Tags> tags = () -> Tags.of("topic", topic, "partition", partition);
            long end = log.logEndOffset();
            long size = log.size();
            usedByDir.merge(log.dir().getParent().toAbsolutePath().normalize(), size, Long::sum);
            TopicTotals totals = topics.computeIfAbsent(topic, t -> new TopicTotals());
            totals.sizeBytes += size;
            if (perPartition) {
                logStartOffset.put(key, tags, log.logStartOffset());
                logEndOffset.put(key, tags, end);
                logSize.put(key, tags, size);
                logSegments.put(key, tags, log.numberOfSegments());
            }
            if (!p.isLeader()) {
                continue;
            }
            totals.led++;
            Map<Integer, Long> caughtUp = p.followerLastCaughtUpMs();
            if (perPartition) {
                highWatermark.put(key, tags, p.highWatermark());
                isrSize.put(key, tags, p.isr().size());
            }
            p.followerEndOffsets().forEach((replica, leo) -> {
                long records = lagRecords(end, leo);
                Long since = caughtUp.get(replica);
                double seconds = since == null ? 0 : lagSeconds(nowMs, since);
                totals.maxLagRecords = Math.max(totals.maxLagRecords, records);
                totals.maxLagSeconds = Math.max(totals.maxLagSeconds, seconds);
                if (perPartition) {
                    String r = Integer.toString(replica);
                    Supplier<Tags> replicaTags = () -> tags.get().and("replica", r);
                    lagRecords.put(key + '\u0000' + r, replicaTags, records);
                    lagSeconds.put(key + '\u0000' + r, replicaTags, seconds);
                }
            });
        }
        capped = !perPartition;
        topics.forEach((topic, t) -> {
            Supplier<Tags> tags = () -> Tags.of("topic", topic);
            topicSize.put(topic, tags, t.sizeBytes);
            topicPartitions.put(topic, tags, t.led);
            topicLagRecords.put(topic, tags, t.maxLagRecords);
            topicLagSeconds.put(topic, tags, t.maxLagSeconds);
        });
        for (Series series : List.of(logStartOffset, logEndOffset, logSize, logSegments, highWatermark, isrSize,
            lagRecords, lagSeconds, topicSize, topicPartitions, topicLagRecords, topicLagSeconds)) {
            series.publish();
        }
        registerDirs(usedByDir);
    }

    private void registerDirs(Map<Path, Long> usedByDir) {
        Set<Path> offline = logManager.offlineDirs();
        List<MultiGauge.Row<?>> used = new ArrayList<>();
        List<MultiGauge.Row<?>> free = new ArrayList<>();
        List<MultiGauge.Row<?>> total = new ArrayList<>();
        List<MultiGauge.Row<?>> online = new ArrayList<>();
        for (Path dir : logManager.logDirs()) {
            Path key = dir.toAbsolutePath().normalize();
            Tags tags = Tags.of("dir", dir.toString());
            boolean isOnline = !offline.contains(dir) && !offline.contains(key);
            online.add(MultiGauge.Row.of(tags, isOnline ? 1 : 0));
            used.add(MultiGauge.Row.of(tags, usedByDir.getOrDefault(key, 0L)));
            try {
                FileStore store = Files.getFileStore(dir);
                free.add(MultiGauge.Row.of(tags, store.getUsableSpace()));
                total.add(MultiGauge.Row.of(tags, store.getTotalSpace()));
            } catch (IOException e) {
                // A dir that cannot be asked has no free figure; its online row says why.
            }
        }
        dirUsed.register(used, true);
        dirFree.register(free, true);
        dirTotal.register(total, true);
        dirOnline.register(online, true);
    }

    /**
     * One gauge's rows, each read from a holder of its own. A refresh {@link #put}s every row it has, then
     * {@link #publish}es: with the same row keys as the last refresh only the holders' values change; with others
     * the rows are registered again (rows no longer there are removed).
     */
    static final class Series {
        private final MultiGauge gauge;
        private Map<String, Holder> holders = new HashMap<>();
        private final Map<String, Pending> next = new HashMap<>();

        /** A row put by the refresh under way: its tags (built only if the rows are registered) and value. */
        private record Pending(Supplier<Tags> tags, double value) {
        }

        Series(MultiGauge gauge) {
            this.gauge = gauge;
        }

        void put(String key, Supplier<Tags> tags, double value) {
            next.put(key, new Pending(tags, value));
        }

        /** Makes the rows put since the last publish the gauge's rows; returns whether they were registered anew. */
        boolean publish() {
            boolean sameRows = next.keySet().equals(holders.keySet());
            if (sameRows) {
                next.forEach((key, row) -> holders.get(key).value = row.value());
            } else {
                Map<String, Holder> registered = new HashMap<>();
                List<MultiGauge.Row<?>> rows = new ArrayList<>(next.size());
                next.forEach((key, row) -> {
                    Holder h = new Holder();
                    h.value = row.value();
                    registered.put(key, h);
                    rows.add(MultiGauge.Row.of(row.tags().get(), h, Holder::get));
                });
                gauge.register(rows, true);
                holders = registered;
            }
            next.clear();
            return !sameRows;
        }
    }

    /** A row's current value; written by the refreshing thread, read by scrapes. */
    private static final class Holder {
        volatile double value;

        double get() {
            return value;
        }
    }

    /** One topic's aggregates over this broker's replicas. */
    private static final class TopicTotals {
        long sizeBytes;
        int led;
        long maxLagRecords;
        double maxLagSeconds;
    }
}
