package io.raftline.metadata.image;

import io.raftline.common.Uuid;
import java.util.Comparator;
import java.util.Map;
import org.pcollections.TreePMap;

/**
 * One topic: its id, whether it is internal, and its partitions by number (0..n-1, sorted). The partitions are a
 * persistent map, so changing one partition of a large topic shares the rest with the topic before.
 */
public record TopicImage(String name, Uuid id, boolean internal, Map<Integer, PartitionRegistration> partitions) {

    public TopicImage {
        partitions = partitions instanceof TreePMap<Integer, PartitionRegistration> persistent
            && persistent.comparator() == Comparator.naturalOrder() ? persistent : TreePMap.from(partitions);
    }

    public PartitionRegistration partition(int p) {
        return partitions.get(p);
    }

    public int numPartitions() {
        return partitions.size();
    }

    /** The partitions as the persistent map they are kept in. */
    TreePMap<Integer, PartitionRegistration> partitionMap() {
        return (TreePMap<Integer, PartitionRegistration>) partitions;
    }

    TopicImage withPartitions(TreePMap<Integer, PartitionRegistration> newPartitions) {
        return new TopicImage(name, id, internal, newPartitions);
    }
}
