package io.raftline.client.admin;

import io.raftline.client.common.Node;
import java.util.List;

/**
 * A consumer group as its coordinator describes it.
 *
 * @param groupId      the group id
 * @param state        Empty, PreparingRebalance, CompletingRebalance or Stable
 * @param protocolType "consumer" for consumer groups (empty for a group that never had members)
 * @param protocol     the assignor the group uses now ("range", "cooperative-sticky", ...; empty with no members)
 * @param generationId the current generation
 * @param coordinator  the broker coordinating the group
 * @param members      the members with their assignments
 */
public record ConsumerGroupDescription(String groupId, String state, String protocolType, String protocol, int generationId,
                                       Node coordinator, List<MemberDescription> members) {

    public ConsumerGroupDescription {
        members = List.copyOf(members);
    }
}
