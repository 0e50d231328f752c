package io.raftline.broker.rpc;

import io.raftline.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/**
 * A metadata image a broker has reached, and read-your-writes waits on its index. The broker keeps two: the one it
 * answers metadata reads from (served), and the one its replicas have applied.
 *
 * <p>Why apart from the replica manager's image: the broker publishes a change here first and only then applies it
 * to its replicas (creating a new topic's logs costs several fsyncs per partition). Admin writes forwarded to the
 * controller, and reads that name a minimum index, are answered once the change is visible here, as Kafka's
 * brokers answer from their metadata cache before their replica manager has caught up; a client that then produces
 * to a partition whose log is still being created gets a retriable error and tries again.
 *
 * <p>One publisher (the metadata follower's thread), any number of readers and waiters. Waiters complete on the
 * publishing thread and must not block.
 */
public final class ServedImage {

    private record Waiter(long index, CompletableFuture<Void> future) {
    }

    private final PriorityQueue<Waiter> waiters = new PriorityQueue<>((a, b) -> Long.compare(a.index(), b.index()));
    private volatile MetadataImage image = MetadataImage.EMPTY;

    public MetadataImage current() {
        return image;
    }

    /** Makes {@code next} the served image and completes every wait it satisfies. */
    public void publish(MetadataImage next) {
        image = next;
        List<Waiter> done = new ArrayList<>();
        synchronized (waiters) {
            while (!waiters.isEmpty() && waiters.peek().index() <= next.index()) {
                done.add(waiters.poll());
            }
        }
        done.forEach(w -> w.future().complete(null));
    }

    /**
     * Completes once the served image has reached {@code index}; at once if it already has. A caller that gives up
     * completes the future itself (e.g. {@code orTimeout}); the wait is then dropped.
     */
    public CompletableFuture<Void> awaitIndex(long index) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Waiter w = new Waiter(index, f);
        synchronized (waiters) {
            // Checked under the lock: publish sets the image before it takes the lock, so no wait is missed.
            if (image.index() >= index) {
                f.complete(null);
                return f;
            }
            waiters.add(w);
        }
        f.whenComplete((v, e) -> {
            if (e != null) {
                synchronized (waiters) {
                    waiters.remove(w);
                }
            }
        });
        return f;
    }

    /** Waits that have not completed; for tests and metrics. */
    public int waiting() {
        synchronized (waiters) {
            return waiters.size();
        }
    }
}
