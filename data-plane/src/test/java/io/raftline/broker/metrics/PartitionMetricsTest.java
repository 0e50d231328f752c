package io.raftline.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.raftline.broker.replica.ReplicaManagerFixture;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The per-partition gauges of a real replica manager over real logs: the bound on per-partition series, the lag
 * arithmetic, and that a partition's rows go when it leaves the broker.
 */
class PartitionMetricsTest {

    @TempDir
    Path tmp;

    @ParameterizedTest
    @CsvSource({
        "0, 0, true",
        "0, 10000, true",
        "10000, 10000, true",
        "10001, 10000, false",
        "1, 0, false",
    })
    void perPartitionSeriesOnlyUpToTheBound(int partitions, int max, boolean expected) {
        assertThat(PartitionMetrics.perPartitionSeries(partitions, max)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({
        "10000, 10000, 0.0",
        "10000, 7500, 2.5",
        "10000, 12000, 0.0",
    })
    void lagInTimeIsHowLongAgoTheFollowerWasCaughtUpAndNeverNegative(long nowMs, long caughtUpMs, double seconds) {
        assertThat(PartitionMetrics.lagSeconds(nowMs, caughtUpMs)).isEqualTo(seconds);
    }

    @ParameterizedTest
    @CsvSource({
        "100, 100, 0",
        "100, 40, 60",
        "100, -1, 100",
        "100, 120, 0",
    })
    void lagInRecordsCountsAFollowerNotHeardFromAsTheWholeLog(long leaderEnd, long followerEnd, long lag) {
        assertThat(PartitionMetrics.lagRecords(leaderEnd, followerEnd)).isEqualTo(lag);
    }

    @Test
    void aPartitionsRowsGoWhenItLeavesTheBroker() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ReplicaManagerFixture fixture = new ReplicaManagerFixture(tmp, 2, List.of(1, 2), List.of(1, 2))) {
            PartitionMetrics metrics = new PartitionMetrics(registry, fixture.replicaManager, fixture.logManager(),
                fixture.time, 10);
            metrics.refresh();
            assertThat(rows(registry, "raftline.log.end.offset")).isEqualTo(2);
            assertThat(rows(registry, "raftline.partition.high.watermark")).isEqualTo(2);
            assertThat(rows(registry, "raftline.partition.isr.size")).isEqualTo(2);
            assertThat(rows(registry, "raftline.replica.lag.seconds")).as("follower 2 of each partition").isEqualTo(2);
            assertThat(rows(registry, "raftline.topic.log.size.bytes")).isEqualTo(1);
            assertThat(rows(registry, "raftline.log.dir.online")).isEqualTo(1);
            assertThat(registry.get("raftline.log.dir.online").gauge().value()).isEqualTo(1.0);
            assertThat(registry.get("raftline.log.dir.free.bytes").gauge().value()).isPositive();

            fixture.deleteTopic();
            metrics.refresh();
            for (String name : List.of("raftline.log.start.offset", "raftline.log.end.offset", "raftline.log.size.bytes",
                "raftline.log.segments", "raftline.partition.high.watermark", "raftline.partition.isr.size",
                "raftline.replica.lag.messages", "raftline.replica.lag.seconds", "raftline.topic.log.size.bytes")) {
                assertThat(rows(registry, name)).as(name + " after the topic left").isZero();
            }
            assertThat(rows(registry, "raftline.log.dir.online")).as("the dir stays").isEqualTo(1);
        }
    }

    @Test
    void aboveTheBoundOnlyTopicAggregatesAreExported() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ReplicaManagerFixture fixture = new ReplicaManagerFixture(tmp, 3, List.of(1, 2), List.of(1, 2))) {
            PartitionMetrics metrics = new PartitionMetrics(registry, fixture.replicaManager, fixture.logManager(),
                fixture.time, 2);
            metrics.refresh();
            assertThat(rows(registry, "raftline.log.end.offset")).isZero();
            assertThat(rows(registry, "raftline.replica.lag.messages")).isZero();
            assertThat(rows(registry, "raftline.topic.log.size.bytes")).isEqualTo(1);
            assertThat(registry.get("raftline.topic.partitions.led").gauge().value()).isEqualTo(3.0);
            assertThat(registry.get("raftline.partition.series.capped").gauge().value()).isEqualTo(1.0);
        }
    }

    private static long rows(SimpleMeterRegistry registry, String name) {
        return registry.getMeters().stream().map(Meter::getId).filter(id -> id.getName().equals(name)).count();
    }

    @Test
    void aRefreshWithTheSameRowsSetsTheirValuesWithoutRegisteringThemAgain() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PartitionMetrics.Series series = new PartitionMetrics.Series(MultiGauge.builder("g").register(registry));
        series.put("a", () -> Tags.of("topic", "a"), 1);
        series.put("b", () -> Tags.of("topic", "b"), 2);
        assertThat(series.publish()).isTrue();
        Gauge a = registry.get("g").tag("topic", "a").gauge();
        series.put("a", () -> Tags.of("topic", "a"), 10);
        series.put("b", () -> Tags.of("topic", "b"), 20);
        assertThat(series.publish()).as("the same rows: values set in place").isFalse();
        assertThat(registry.get("g").tag("topic", "a").gauge()).isSameAs(a);
        assertThat(a.value()).isEqualTo(10.0);
        assertThat(registry.get("g").tag("topic", "b").gauge().value()).isEqualTo(20.0);
        series.put("b", () -> Tags.of("topic", "b"), 30);
        assertThat(series.publish()).as("a row gone: registered anew").isTrue();
        assertThat(registry.find("g").tag("topic", "a").gauge()).isNull();
        assertThat(registry.get("g").tag("topic", "b").gauge().value()).isEqualTo(30.0);
        series.put("b", () -> Tags.of("topic", "b"), 31);
        series.put("c", () -> Tags.of("topic", "c"), 3);
        assertThat(series.publish()).as("a row added").isTrue();
        assertThat(registry.get("g").tag("topic", "b").gauge().value()).isEqualTo(31.0);
        assertThat(registry.get("g").tag("topic", "c").gauge().value()).isEqualTo(3.0);
    }
}
