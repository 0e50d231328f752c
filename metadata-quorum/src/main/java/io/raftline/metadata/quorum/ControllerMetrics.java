package io.raftline.metadata.quorum;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.raftline.common.Time;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.metadata.image.TopicImage;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The controller's own meters on a quorum node: its event thread (events waiting, time per event), the size of the
 * metadata image it decides on (topics and partitions), and, on the active controller, how long ago each
 * registered broker's last heartbeat arrived. A broker's heartbeat gauge is added when the broker first shows in a
 * committed image; it reads NaN on a node that is not the active controller, as the voter gauges do.
 */
final class ControllerMetrics {

    private final MeterRegistry registry;
    private final ActiveController controller;
    private final Time time;
    private final List<Meter> meters = new CopyOnWriteArrayList<>();
    private final Set<Integer> heartbeatBrokers = ConcurrentHashMap.newKeySet();

    ControllerMetrics(MeterRegistry registry, ActiveController controller, MetadataStateMachine stateMachine, Time time) {
        this.registry = registry;
        this.controller = controller;
        this.time = time;
        ControllerEventLoop loop = controller.eventLoop();
        meters.add(Gauge.builder("raftline.controller.event.queue.size", loop, ControllerEventLoop::readyEvents)
            .description("Controller events due to run and waiting for the controller's event thread").register(registry));
        Timer processing = Timer.builder("raftline.controller.event.processing")
            .description("Time the controller's event thread spends on each event (a decision, a tick, an answer)")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofNanos(10_000)).maximumExpectedValue(Duration.ofSeconds(10))
            .register(registry);
        meters.add(processing);
        loop.onEventDone(nanos -> processing.record(nanos, TimeUnit.NANOSECONDS));
        meters.add(Gauge.builder("raftline.metadata.image.topics", stateMachine, sm -> sm.image().topicsById().size())
            .description("Topics in this node's metadata image").register(registry));
        meters.add(Gauge.builder("raftline.metadata.image.partitions", stateMachine, sm -> partitions(sm.image()))
            .description("Partitions in this node's metadata image (what the image's size and every scan grow with)")
            .register(registry));
        stateMachine.addCommitListener((entry, delta, image) -> image.brokers().keySet().forEach(this::heartbeatGauge));
    }

    private void heartbeatGauge(int brokerId) {
        if (heartbeatBrokers.add(brokerId)) {
            meters.add(Gauge.builder("raftline.controller.broker.heartbeat.age.seconds", this, m -> m.heartbeatAge(brokerId))
                .tag("broker", Integer.toString(brokerId))
                .description("On the active controller: seconds since each broker's last heartbeat arrived (NaN elsewhere)")
                .register(registry));
        }
    }

    private double heartbeatAge(int brokerId) {
        return heartbeatAgeSeconds(controller.isActive(), controller.controller().brokerLastHeartbeatArrivalMs(brokerId),
            time.hiResMilliseconds());
    }

    /**
     * Seconds since a heartbeat last arrived at {@code lastArrivalMs} (monotonic ms, -1 for none since this
     * controller activated); NaN when this node is not the active controller or has seen none.
     */
    static double heartbeatAgeSeconds(boolean active, long lastArrivalMs, long nowMs) {
        if (!active || lastArrivalMs < 0) {
            return Double.NaN;
        }
        return Math.max(0, nowMs - lastArrivalMs) / 1000.0;
    }

    static long partitions(MetadataImage image) {
        long n = 0;
        for (TopicImage topic : image.topicsById().values()) {
            n += topic.partitions().size();
        }
        return n;
    }

    void close() {
        meters.forEach(registry::remove);
    }
}
