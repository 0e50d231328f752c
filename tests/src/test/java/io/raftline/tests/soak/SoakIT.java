package io.raftline.tests.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The soak of issue 24, item 8, through {@link SoakRun}: three real node processes under acks=all produce at half
 * their measured maximum with a consumer reading behind, segments rolled and deleted throughout. Nothing acknowledged
 * may go unread, and no node's resident memory, heap after a full collection or open files may grow
 * ({@link SoakGrowth}). The default run is short (32 s in 8 s windows); the hour in one-minute windows is tagged
 * {@code system}. Each writes {@code soak.jsonl} and {@code soak.svg} under {@code tests/target/}.
 */
class SoakIT {

    @Test
    @Timeout(300)
    void halfAMinuteAtHalfTheMaximumLeaksNothingAndLosesNothing() throws Exception {
        long seed = Long.getLong("soak.seed", System.nanoTime());
        System.out.println("SoakIT seed " + seed + " (rerun with -Dsoak.seed=" + seed + ")");
        SoakRun.Result r = SoakRun.run(new SoakRun.Settings(6, 1024, Duration.ofSeconds(6), Duration.ofSeconds(32),
            Duration.ofSeconds(8), Duration.ofSeconds(2), 8L << 20, 48L << 20, 2_000, "-Xmx256m", seed,
            Path.of("target", "soak-short")));
        // Short: the first windows still hold the JIT's and the allocator's warm-up, so the allowances are wider
        // than the hour's; a leak of a file per request or of a buffer per batch still shows.
        check(r, Path.of("target", "soak-short"), new SoakGrowth.Bound("rss", 0.25, 64),
            new SoakGrowth.Bound("heap", 0.5, 24), new SoakGrowth.Bound("files", 0.2, 32));
    }

    @Test
    @Tag("system")
    @Timeout(5400)
    void anHourAtHalfTheMaximumLeaksNothingAndLosesNothing() throws Exception {
        long seed = Long.getLong("soak.seed", System.nanoTime());
        System.out.println("SoakIT seed " + seed + " (rerun with -Dsoak.seed=" + seed + ")");
        Duration duration = Duration.ofMinutes(Long.getLong("soak.minutes", 60));
        SoakRun.Result r = SoakRun.run(new SoakRun.Settings(6, 1024, Duration.ofSeconds(60), duration,
            Duration.ofMinutes(1), Duration.ofSeconds(30), 64L << 20, 512L << 20, 60_000, "-Xmx512m", seed,
            Path.of("target", "soak-hour")));
        check(r, Path.of("target", "soak-hour"), new SoakGrowth.Bound("rss", 0.10, 48),
            new SoakGrowth.Bound("heap", 0.20, 16), new SoakGrowth.Bound("files", 0.10, 24));
    }

    private static void check(SoakRun.Result r, Path out, SoakGrowth.Bound rss, SoakGrowth.Bound heap,
                              SoakGrowth.Bound files) throws Exception {
        System.out.printf("SoakIT: maximum %.0f/s, soaked at %.0f/s: %d acknowledged, %d failed, %d read, %d never read%n",
            r.maxPerSec(), r.targetPerSec(), r.acked(), r.failed(), r.consumed(), r.ackedNeverRead());
        assertThat(r.windows()).hasSizeGreaterThanOrEqualTo(SoakGrowth.MIN_WINDOWS);
        assertThat(r.acked()).isPositive();
        assertThat(r.failed()).as("sends that failed").isZero();
        assertThat(r.ackedNeverRead()).as("acknowledged records the consumer never read").isZero();
        List<SoakGrowth.Violation> grew = new ArrayList<>();
        grew.addAll(grown(r, SoakRun.NodeSample::rssMiB, rss));
        grew.addAll(grown(r, SoakRun.NodeSample::heapAfterGcMiB, heap));
        grew.addAll(grown(r, SoakRun.NodeSample::openFiles, files));
        assertThat(grew).as("series that grew").isEmpty();
        assertThat(Files.readAllLines(out.resolve("soak.jsonl"))).hasSize(r.windows().size());
        assertThat(Files.readString(out.resolve("soak.svg"))).startsWith("<svg").contains("<polyline");
    }

    /** The three nodes' series of one metric that grew past its bound. */
    private static List<SoakGrowth.Violation> grown(SoakRun.Result r, ToDoubleFunction<SoakRun.NodeSample> metric,
                                                    SoakGrowth.Bound bound) {
        Map<String, double[]> series = r.nodeSeries(metric);
        assertThat(series).hasSize(3);
        return SoakGrowth.checkAll(series, bound);
    }
}
