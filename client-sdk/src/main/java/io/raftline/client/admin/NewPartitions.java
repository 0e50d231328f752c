package io.raftline.client.admin;

/**
 * The new total partition count of a topic for {@link Admin#createPartitions}; partitions only grow.
 *
 * @param totalCount the partition count after the change
 */
public record NewPartitions(int totalCount) {

    /** Kafka's factory spelling. */
    public static NewPartitions increaseTo(int totalCount) {
        return new NewPartitions(totalCount);
    }
}
