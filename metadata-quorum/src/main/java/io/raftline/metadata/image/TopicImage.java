package io.raftline.metadata.image;

import io.raftline.common.Uuid;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** One topic: its id, whether it is internal, and its partitions by number (0..n-1, sorted). */
public record TopicImage(String name, Uuid id, boolean internal, Map<Integer, PartitionRegistration> partitions) {

    public TopicImage {
        partitions = Collections.unmodifiableMap(new TreeMap<>(partitions));
    }

    public PartitionRegistration partition(int p) {
        return partitions.get(p);
    }

    public int numPartitions() {
        return partitions.size();
    }

    TopicImage withPartitions(Map<Integer, PartitionRegistration> newPartitions) {
        return new TopicImage(name, id, internal, newPartitions);
    }
}
