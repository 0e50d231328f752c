package io.raftline.client.admin;

import io.raftline.client.common.TopicPartition;
import java.util.List;

/**
 * One member of a consumer group.
 *
 * @param memberId   the id the coordinator gave it
 * @param clientId   its client.id
 * @param host       the address it connected from
 * @param assignment the partitions it owns in the current generation (sorted)
 */
public record MemberDescription(String memberId, String clientId, String host, List<TopicPartition> assignment) {

    public MemberDescription {
        assignment = List.copyOf(assignment);
    }
}
