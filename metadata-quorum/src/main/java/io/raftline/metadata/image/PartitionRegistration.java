package io.raftline.metadata.image;

import io.raftline.common.Uuid;
import io.raftline.protocol.metadata.IntList;
import io.raftline.protocol.metadata.PartitionChangeRecord;
import io.raftline.protocol.metadata.PartitionRecord;
import com.google.protobuf.ByteString;
import java.util.List;

/**
 * The replicated state of one partition. {@code replicas} is in preferred order (the first is the preferred
 * leader); during a reassignment it is the union of the old and new sets, with {@code addingReplicas} and
 * {@code removingReplicas} saying which is which. Every change bumps {@code partitionEpoch}; a change of leader
 * also bumps {@code leaderEpoch}.
 */
public record PartitionRegistration(List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch,
                                    int partitionEpoch, List<Integer> addingReplicas, List<Integer> removingReplicas,
                                    boolean belowMinIsr) {

    public static final int NO_LEADER = -1;

    public PartitionRegistration {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
    }

    public boolean hasLeader() {
        return leader != NO_LEADER;
    }

    public boolean reassigning() {
        return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
    }

    public int preferredLeader() {
        return replicas.get(0);
    }

    /** The replica set the partition had before its reassignment began (replicas minus adding). */
    public List<Integer> originalReplicas() {
        return replicas.stream().filter(r -> !addingReplicas.contains(r)).toList();
    }

    /** The replica set a reassignment moves to (replicas minus removing). */
    public List<Integer> targetReplicas() {
        return replicas.stream().filter(r -> !removingReplicas.contains(r)).toList();
    }

    static PartitionRegistration fromRecord(PartitionRecord r) {
        return new PartitionRegistration(r.getReplicasList(), r.getIsrList(), r.getLeader(), r.getLeaderEpoch(),
            r.getPartitionEpoch(), r.getAddingReplicasList(), r.getRemovingReplicasList(), r.getBelowMinIsr());
    }

    /** The registration after a change record: absent fields keep their value; epochs move as documented. */
    PartitionRegistration merge(PartitionChangeRecord c) {
        int newLeader = c.hasLeader() ? c.getLeader() : leader;
        int newLeaderEpoch = newLeader != leader ? leaderEpoch + 1 : leaderEpoch;
        return new PartitionRegistration(
            c.hasReplicas() ? c.getReplicas().getValuesList() : replicas,
            c.hasIsr() ? c.getIsr().getValuesList() : isr,
            newLeader,
            newLeaderEpoch,
            partitionEpoch + 1,
            c.hasAddingReplicas() ? c.getAddingReplicas().getValuesList() : addingReplicas,
            c.hasRemovingReplicas() ? c.getRemovingReplicas().getValuesList() : removingReplicas,
            c.hasBelowMinIsr() ? c.getBelowMinIsr() : belowMinIsr);
    }

    PartitionRecord toRecord(Uuid topicId, int partition) {
        return PartitionRecord.newBuilder()
            .setTopicId(ByteString.copyFrom(topicId.bytes()))
            .setPartition(partition)
            .addAllReplicas(replicas)
            .addAllIsr(isr)
            .setLeader(leader)
            .setLeaderEpoch(leaderEpoch)
            .setPartitionEpoch(partitionEpoch)
            .addAllAddingReplicas(addingReplicas)
            .addAllRemovingReplicas(removingReplicas)
            .setBelowMinIsr(belowMinIsr)
            .build();
    }

    /** Helper for writers: a protobuf list of ints. */
    public static IntList intList(List<Integer> values) {
        return IntList.newBuilder().addAllValues(values).build();
    }
}
