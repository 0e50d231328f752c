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
    private final MultiGauge logStartOffset;
    private final MultiGauge logEndOffset;
    private final MultiGauge logSize;
    private final MultiGauge logSegments;
    private final MultiGauge highWatermark;
    private final MultiGauge isrSize;
    private final MultiGauge lagRecords;
    private final MultiGauge lagSeconds;
    private final MultiGauge topicSize;
    private final MultiGauge topicPartitions;
    private final MultiGauge topicLagRecords;
    private final MultiGauge topicLagSeconds;
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
        logStartOffset = gauge(registry, "raftline.log.start.offset", "Log start offset of this broker's replica");
        logEndOffset = gauge(registry, "raftline.log.end.offset", "Log end offset of this broker's replica");
        logSize = gauge(registry, "raftline.log.size.bytes", "Bytes on disk of this broker's replica");
        logSegments = gauge(registry, "raftline.log.segments", "Segments of this broker's replica");
        highWatermark = gauge(registry, "raftline.partition.high.watermark", "On the leader: the partition's high watermark");
        isrSize = gauge(registry, "raftline.partition.isr.size", "On the leader: replicas in the ISR");
        lagRecords = gauge(registry, "raftline.replica.lag.messages", "On the leader: its log end offset minus each follower's");
        lagSeconds = gauge(registry, "raftline.replica.lag.seconds",
            "On the leader: how long ago each follower was last caught up");
        topicSize = gauge(registry, "raftline.topic.log.size.bytes", "Bytes on disk of this broker's replicas of the topic");
        topicPartitions = gauge(registry, "raftline.topic.partitions.led", "Partitions of the topic this broker leads");
        topicLagRecords = gauge(registry, "raftline.topic.replica.lag.messages.max",
            "On the leaders here: the largest follower lag in records over the topic's partitions");
        topicLagSeconds = gauge(registry, "raftline.topic.replica.lag.seconds.max",
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

    /** Re-reads every partition and log dir into the gauges. */
    public void refresh() {
        long nowMs = time.milliseconds();
        Collection<Partition> partitions = replicaManager.partitions();
        boolean perPartition = perPartitionSeries(partitions.size(), maxPartitionSeries);
        Rows rows = new Rows();
        Map<String, TopicTotals> topics = new TreeMap<>();
        Map<Path, Long> usedByDir = new HashMap<>();
        for (Partition p : partitions) {
            Log log = p.log();
            if (log == null || log.isOffline()) {
                continue;
            }
            String topic = p.topicPartition().topic();
            Tags tags = Tags.of("topic", topic, "partition", Integer.toString(p.topicPartition().partition()));
            long end = log.logEndOffset();
            long size = log.size();
            usedByDir.merge(log.dir().getParent().toAbsolutePath().normalize(), size, Long::sum);
            TopicTotals totals = topics.computeIfAbsent(topic, t -> new TopicTotals());
            totals.sizeBytes += size;
            if (perPartition) {
                rows.starts.add(MultiGauge.Row.of(tags, log.logStartOffset()));
                rows.ends.add(MultiGauge.Row.of(tags, end));
                rows.sizes.add(MultiGauge.Row.of(tags, size));
                rows.segments.add(MultiGauge.Row.of(tags, log.numberOfSegments()));
            }
            if (!p.isLeader()) {
                continue;
            }
            totals.led++;
            Map<Integer, Long> caughtUp = p.followerLastCaughtUpMs();
            if (perPartition) {
                rows.highWatermarks.add(MultiGauge.Row.of(tags, p.highWatermark()));
                rows.isrSizes.add(MultiGauge.Row.of(tags, p.isr().size()));
            }
            p.followerEndOffsets().forEach((replica, leo) -> {
                long records = lagRecords(end, leo);
                Long since = caughtUp.get(replica);
                double seconds = since == null ? 0 : lagSeconds(nowMs, since);
                totals.maxLagRecords = Math.max(totals.maxLagRecords, records);
                totals.maxLagSeconds = Math.max(totals.maxLagSeconds, seconds);
                if (perPartition) {
                    Tags replicaTags = tags.and("replica", Integer.toString(replica));
                    rows.lagRecords.add(MultiGauge.Row.of(replicaTags, records));
                    rows.lagSeconds.add(MultiGauge.Row.of(replicaTags, seconds));
                }
            });
        }
        capped = !perPartition;
        logStartOffset.register(rows.starts, true);
        logEndOffset.register(rows.ends, true);
        logSize.register(rows.sizes, true);
        logSegments.register(rows.segments, true);
        highWatermark.register(rows.highWatermarks, true);
        isrSize.register(rows.isrSizes, true);
        lagRecords.register(rows.lagRecords, true);
        lagSeconds.register(rows.lagSeconds, true);
        registerTopics(topics);
        registerDirs(usedByDir);
    }

    private void registerTopics(Map<String, TopicTotals> topics) {
        List<MultiGauge.Row<?>> sizes = new ArrayList<>();
        List<MultiGauge.Row<?>> led = new ArrayList<>();
        List<MultiGauge.Row<?>> lagR = new ArrayList<>();
        List<MultiGauge.Row<?>> lagS = new ArrayList<>();
        topics.forEach((topic, t) -> {
            Tags tags = Tags.of("topic", topic);
            sizes.add(MultiGauge.Row.of(tags, t.sizeBytes));
            led.add(MultiGauge.Row.of(tags, t.led));
            lagR.add(MultiGauge.Row.of(tags, t.maxLagRecords));
            lagS.add(MultiGauge.Row.of(tags, t.maxLagSeconds));
        });
        topicSize.register(sizes, true);
        topicPartitions.register(led, true);
        topicLagRecords.register(lagR, true);
        topicLagSeconds.register(lagS, true);
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

    /** The rows of one refresh. */
    private static final class Rows {
        final List<MultiGauge.Row<?>> starts = new ArrayList<>();
        final List<MultiGauge.Row<?>> ends = new ArrayList<>();
        final List<MultiGauge.Row<?>> sizes = new ArrayList<>();
        final List<MultiGauge.Row<?>> segments = new ArrayList<>();
        final List<MultiGauge.Row<?>> highWatermarks = new ArrayList<>();
        final List<MultiGauge.Row<?>> isrSizes = new ArrayList<>();
        final List<MultiGauge.Row<?>> lagRecords = new ArrayList<>();
        final List<MultiGauge.Row<?>> lagSeconds = new ArrayList<>();
    }

    /** One topic's aggregates over this broker's replicas. */
    private static final class TopicTotals {
        long sizeBytes;
        int led;
        long maxLagRecords;
        double maxLagSeconds;
    }
}
