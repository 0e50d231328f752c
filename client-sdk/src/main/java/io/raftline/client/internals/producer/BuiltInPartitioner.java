package io.raftline.client.internals.producer;

import io.raftline.client.common.Cluster;
import io.raftline.client.common.PartitionInfo;
import io.raftline.client.producer.Partitioner;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default partitioner. A key goes to {@code murmur2(key) % partitions}. Records without a key stick to one
 * partition (chosen at random among those with a leader) until about {@code batch.size} bytes went there, then move
 * on: full batches instead of many tiny ones, and an even spread over time (Kafka's KIP-794 idea, without the
 * adaptive part).
 */
public final class BuiltInPartitioner implements Partitioner {

    private final int stickyBytes;
    private final boolean ignoreKeys;
    private final RandomGenerator random;
    private final Map<String, Sticky> sticky = new ConcurrentHashMap<>();

    private static final class Sticky {
        int partition = -1;
        long bytes;
    }

    /**
     * @param stickyBytes bytes sent to a sticky partition before switching (the producer's batch.size)
     * @param ignoreKeys  spread keyed records like unkeyed ones ({@code partitioner.ignore.keys})
     * @param random      the source of the sticky choices (seeded in tests)
     */
    public BuiltInPartitioner(int stickyBytes, boolean ignoreKeys, RandomGenerator random) {
        this.stickyBytes = Math.max(1, stickyBytes);
        this.ignoreKeys = ignoreKeys;
        this.random = random;
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }

    @Override
    public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes, Cluster cluster) {
        int count = cluster.partitionsForTopic(topic).size();
        if (keyBytes != null && !ignoreKeys) {
            return Murmur2.partitionForKey(keyBytes, count);
        }
        int size = (keyBytes == null ? 0 : keyBytes.length) + (valueBytes == null ? 0 : valueBytes.length);
        Sticky s = sticky.computeIfAbsent(topic, t -> new Sticky());
        synchronized (s) {
            if (s.partition < 0 || s.partition >= count || s.bytes >= stickyBytes) {
                s.partition = pick(cluster, topic, count, s.partition);
                s.bytes = 0;
            }
            s.bytes += size;
            return s.partition;
        }
    }

    private int pick(Cluster cluster, String topic, int count, int previous) {
        List<PartitionInfo> available = cluster.availablePartitionsForTopic(topic);
        synchronized (random) {
            if (available.isEmpty()) {
                return random.nextInt(count);
            }
            if (available.size() == 1) {
                return available.get(0).partition();
            }
            int next;
            do {
                next = available.get(random.nextInt(available.size())).partition();
            } while (next == previous);
            return next;
        }
    }
}
