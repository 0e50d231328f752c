package io.raftline.broker.log;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many index files may stay open for writing at once. An index is written through its file's channel (see
 * {@link MappedIndex}), and keeping that descriptor while its segment is active saves an open and a close per
 * entry; but a broker with thousands of partitions written at once would then hold three descriptors per partition
 * (the .log and both indexes) and run out of them: at 10,000 partitions written round-robin a node reached this
 * machine's limit of 20,000, an index failed to open ("Too many open files") and the whole log dir went offline.
 * So the first indexes written keep their descriptor up to this budget, until their segment rolls or closes; an
 * index written while the budget is spent opens its file for that one entry and closes it again.
 *
 * <p>The process's budget is a tenth of its descriptor limit, between 16 and 2,048: the limit is the process's, the
 * .log files (one a segment, as Kafka's) and the sockets need the rest.
 */
final class IndexDescriptors {

    static final IndexDescriptors PROCESS = new IndexDescriptors(forLimit(descriptorLimit()));

    private final int capacity;
    private final AtomicInteger held = new AtomicInteger();

    IndexDescriptors(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("a budget of " + capacity + " descriptors");
        }
        this.capacity = capacity;
    }

    /** The budget for a process allowed {@code maxDescriptors} open files. */
    static int forLimit(long maxDescriptors) {
        return (int) Math.max(16, Math.min(2048, maxDescriptors / 10));
    }

    private static long descriptorLimit() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            return unix.getMaxFileDescriptorCount();
        }
        return 20_480; // not a Unix JVM: no figure to read; 2,048 index descriptors
    }

    /** Takes one descriptor of the budget if one is left. */
    boolean tryTake() {
        while (true) {
            int now = held.get();
            if (now >= capacity) {
                return false;
            }
            if (held.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    /** Gives back one descriptor taken by {@link #tryTake()}. */
    void give() {
        held.decrementAndGet();
    }

    int held() {
        return held.get();
    }
}
