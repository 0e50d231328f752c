package io.raftline.tests.overload;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One broker under more produce load than it can take (issue 12, item 5), through {@link OverloadRun}: it must
 * neither run out of memory nor stall, and must push back within its configured bounds. The default run is small
 * (10 producers, tight bounds so the push-back is exercised); the full one (50 producers, -Xmx512m, defaults) is
 * tagged {@code system}.
 */
@Timeout(600)
class OverloadIT {

    @Test
    void tenProducersAgainstTightBoundsArePushedBackWithoutStallingTheBroker() throws Exception {
        int maxRequests = 8;
        long maxBytes = 4L << 20;
        OverloadRun.Result r = OverloadRun.run(new OverloadRun.Settings(10, 3, 512, Duration.ofSeconds(20), "-Xmx192m",
            2L << 20, 500, Map.of("queued.max.requests", Integer.toString(maxRequests),
                "queued.max.request.bytes", Long.toString(maxBytes),
                "produce.stream.max.in.flight.requests", "2")));
        System.out.println("OverloadIT small: " + r.toJson());
        assertThat(r.brokerAlive()).isTrue();
        assertThat(r.outOfMemory()).isFalse();
        assertThat(r.acked()).isPositive();
        assertThat(r.consumed()).isPositive();
        // Generous: the machine is shared; a broker that stopped answering would show a gap of the whole run.
        assertThat(r.maxAckGapMs()).isLessThan(10_000);
        assertThat(r.maxQueuedRequests()).isLessThanOrEqualTo(maxRequests);
        // The byte bound stops new reservations; at most one request per reservation arrives past it.
        assertThat(r.maxQueuedBytes()).isLessThanOrEqualTo(maxBytes + maxRequests * (1L << 20));
        assertThat(r.maxStreamsWaiting()).as("some producer connection was held back").isPositive();
    }

    @Test
    @Tag("system")
    void fiftyProducersAgainstOneBrokerAt512MiB() throws Exception {
        OverloadRun.Result r = OverloadRun.run(new OverloadRun.Settings(50, 6, 1024, Duration.ofSeconds(60), "-Xmx512m",
            4L << 20, 500, Map.of()));
        System.out.println("OverloadIT full: " + r.toJson());
        assertThat(r.brokerAlive()).isTrue();
        assertThat(r.outOfMemory()).isFalse();
        assertThat(r.acked()).isPositive();
        assertThat(r.maxAckGapMs()).isLessThan(15_000);
        assertThat(r.heapPeakMib()).isLessThanOrEqualTo(512);
    }
}
