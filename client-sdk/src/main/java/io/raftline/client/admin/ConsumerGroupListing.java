package io.raftline.client.admin;

/**
 * A group as {@link Admin#listConsumerGroups()} lists it.
 *
 * @param groupId     the group id
 * @param state       the group's state: Empty, PreparingRebalance, CompletingRebalance, Stable
 * @param coordinator the id of the broker coordinating it
 */
public record ConsumerGroupListing(String groupId, String state, int coordinator) {
}
