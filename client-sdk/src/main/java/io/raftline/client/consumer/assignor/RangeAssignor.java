package io.raftline.client.consumer.assignor;

import io.raftline.client.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Kafka's "range": topic by topic, the members subscribed to it (sorted by member id) get consecutive ranges of its
 * partitions; with P partitions and N members, each gets P/N and the first P%N one more. Co-partitioned topics thus
 * land together, at the cost of balance across topics.
 */
public final class RangeAssignor implements ConsumerPartitionAssignor {

    public static final String NAME = "range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public GroupAssignment assign(Map<String, Integer> partitionsPerTopic, GroupSubscription subscriptions) {
        Map<String, TreeSet<String>> membersPerTopic = new TreeMap<>();
        Map<String, List<TopicPartition>> out = new HashMap<>();
        subscriptions.subscriptions().forEach((member, s) -> {
            out.put(member, new ArrayList<>());
            s.topics().forEach(t -> membersPerTopic.computeIfAbsent(t, k -> new TreeSet<>()).add(member));
        });
        membersPerTopic.forEach((topic, members) -> {
            Integer count = partitionsPerTopic.get(topic);
            if (count == null) {
                return;
            }
            int each = count / members.size();
            int extra = count % members.size();
            int i = 0;
            for (String member : members) {
                int start = each * i + Math.min(i, extra);
                int length = each + (i < extra ? 1 : 0);
                for (int p = start; p < start + length; p++) {
                    out.get(member).add(new TopicPartition(topic, p));
                }
                i++;
            }
        });
        return AssignorSupport.toGroupAssignment(out);
    }
}
