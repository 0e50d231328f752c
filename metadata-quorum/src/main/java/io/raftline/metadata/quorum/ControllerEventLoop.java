package io.raftline.metadata.quorum;

import io.raftline.common.Time;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * The active controller's single event thread, measured: {@link #readyEvents()} counts the events waiting to run
 * (submitted and due, not the periodic duties waiting for their next turn), and every event's run time, read from
 * the injected {@link Time}, goes to the listener given to {@link #onEventDone}.
 */
final class ControllerEventLoop extends ScheduledThreadPoolExecutor {

    private final Time time;
    /** Event thread only: when the running event started. */
    private long startedNs;
    private volatile LongConsumer eventDone = nanos -> { };

    ControllerEventLoop(int nodeId, Time time) {
        super(1, r -> {
            Thread t = new Thread(r, "controller-event-" + nodeId);
            t.setDaemon(true);
            return t;
        });
        this.time = time;
    }

    /** Told each event's run time in nanoseconds, on the event thread. */
    void onEventDone(LongConsumer listener) {
        this.eventDone = listener;
    }

    /** Events due to run and waiting for the event thread (any thread; walks the queue). */
    int readyEvents() {
        int n = 0;
        for (Runnable r : getQueue()) {
            if (!(r instanceof Delayed d) || d.getDelay(TimeUnit.NANOSECONDS) <= 0) {
                n++;
            }
        }
        return n;
    }

    @Override
    protected void beforeExecute(Thread t, Runnable r) {
        startedNs = time.nanoseconds();
    }

    @Override
    protected void afterExecute(Runnable r, Throwable t) {
        eventDone.accept(Math.max(0, time.nanoseconds() - startedNs));
    }
}
