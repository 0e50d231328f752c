package io.raftline.broker.group;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The production scheduler: one daemon thread, cancelled tasks removed at once. */
public final class ExecutorGroupScheduler implements GroupScheduler, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ExecutorGroupScheduler.class);

    private final ScheduledThreadPoolExecutor executor;

    public ExecutorGroupScheduler(String threadName) {
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public Task schedule(long delayMs, Runnable task) {
        ScheduledFuture<?> f = executor.schedule(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.error("group coordinator timer task failed", e);
            }
        }, Math.max(0, delayMs), TimeUnit.MILLISECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
