package io.raftline.client.consumer.assignor;

import io.raftline.client.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Kafka's "roundrobin": every partition of every subscribed topic, sorted by topic then partition, dealt in turn to
 * the members sorted by id, skipping a member not subscribed to the partition's topic. With equal subscriptions the
 * counts differ by at most one.
 */
public final class RoundRobinAssignor implements ConsumerPartitionAssignor {

    public static final String NAME = "roundrobin";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public GroupAssignment assign(Map<String, Integer> partitionsPerTopic, GroupSubscription subscriptions) {
        List<String> members = new ArrayList<>(new TreeSet<>(subscriptions.subscriptions().keySet()));
        Map<String, List<TopicPartition>> out = new HashMap<>();
        members.forEach(m -> out.put(m, new ArrayList<>()));
        if (members.isEmpty()) {
            return AssignorSupport.toGroupAssignment(out);
        }
        int next = 0;
        for (TopicPartition tp : AssignorSupport.subscribedPartitions(partitionsPerTopic, subscriptions)) {
            for (int tries = 0; tries < members.size(); tries++) {
                String m = members.get(next);
                next = (next + 1) % members.size();
                if (subscriptions.subscriptions().get(m).topics().contains(tp.topic())) {
                    out.get(m).add(tp);
                    break;
                }
            }
        }
        return AssignorSupport.toGroupAssignment(out);
    }
}
