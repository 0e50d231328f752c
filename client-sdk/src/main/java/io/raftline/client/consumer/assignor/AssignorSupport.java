package io.raftline.client.consumer.assignor;

import io.raftline.client.common.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** What the built-in assignors share. */
final class AssignorSupport {

    private AssignorSupport() {
    }

    /** Every existing partition of every topic some member subscribes to, sorted. */
    static TreeSet<TopicPartition> subscribedPartitions(Map<String, Integer> partitionsPerTopic,
                                                        ConsumerPartitionAssignor.GroupSubscription subscriptions) {
        TreeSet<TopicPartition> out = new TreeSet<>();
        subscriptions.subscriptions().values().forEach(s -> s.topics().forEach(t -> {
            Integer n = partitionsPerTopic.get(t);
            for (int p = 0; n != null && p < n; p++) {
                out.add(new TopicPartition(t, p));
            }
        }));
        return out;
    }

    static ConsumerPartitionAssignor.GroupAssignment toGroupAssignment(Map<String, List<TopicPartition>> partitions) {
        Map<String, ConsumerPartitionAssignor.Assignment> out = new HashMap<>();
        partitions.forEach((m, tps) -> {
            List<TopicPartition> sorted = new ArrayList<>(tps);
            Collections.sort(sorted);
            out.put(m, new ConsumerPartitionAssignor.Assignment(sorted));
        });
        return new ConsumerPartitionAssignor.GroupAssignment(out);
    }
}
