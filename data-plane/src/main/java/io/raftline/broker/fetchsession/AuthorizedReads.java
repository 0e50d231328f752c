package io.raftline.broker.fetchsession;

import io.raftline.broker.replica.FetchManager.PartitionData;
import io.raftline.broker.replica.FetchManager.PartitionFetch;
import io.raftline.broker.replica.Partition;
import io.raftline.broker.replica.TopicPartition;
import io.raftline.broker.security.RequestAuthorizer;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.ResourceType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a consumer's fetch session may read now. Every partition a consumer's session reads is authorized (READ on
 * its topic, for the caller of the request being served) at every fetch, whether the request names it or not: an
 * ACL removed after a partition was named takes effect at the next fetch, and a session's id is no key. A refused
 * partition is answered TOPIC_AUTHORIZATION_FAILED (and, being an error, in every answer of the session). Used by
 * both listeners (Kafka's and gRPC's) for their consumers' sessions.
 *
 * @param order  the session's partitions, in read order
 * @param toRead those the caller may read, in the same order
 * @param denied the refused ones, answered with the error
 */
public record AuthorizedReads(List<PartitionFetch> order, List<PartitionFetch> toRead,
                              Map<TopicPartition, PartitionData> denied) {

    /** Splits {@code partitions} (a session's, in read order) by the caller's READ ACLs; all readable when off. */
    public static AuthorizedReads of(RequestAuthorizer authorizer, List<PartitionFetch> partitions) {
        if (!authorizer.enabled()) {
            return new AuthorizedReads(partitions, partitions, Map.of());
        }
        Map<String, Boolean> allowed = new HashMap<>();
        List<PartitionFetch> toRead = new ArrayList<>(partitions.size());
        Map<TopicPartition, PartitionData> denied = new HashMap<>();
        for (PartitionFetch pf : partitions) {
            if (allowed.computeIfAbsent(pf.tp().topic(),
                    topic -> authorizer.allowed(Operation.READ, ResourceType.TOPIC, topic))) {
                toRead.add(pf);
            } else {
                denied.put(pf.tp(), new PartitionData(pf.tp(), new Partition.ReadResult(ErrorCode.TOPIC_AUTHORIZATION_FAILED,
                    RequestAuthorizer.denied(Operation.READ, ResourceType.TOPIC, pf.tp().topic()).getMessage(), -1, -1, -1,
                    null, -1, -1), -1, -1, false));
            }
        }
        return new AuthorizedReads(partitions, toRead, denied);
    }

    /** Whether some partition was refused (then the fetch is answered at once, as any error is). */
    public boolean anyDenied() {
        return !denied.isEmpty();
    }

    /** {@code read} (one per {@link #toRead}, same order) and the refused partitions, in the session's order. */
    public List<PartitionData> merge(List<PartitionData> read) {
        if (denied.isEmpty()) {
            return read;
        }
        List<PartitionData> out = new ArrayList<>(order.size());
        int next = 0;
        for (PartitionFetch pf : order) {
            PartitionData refused = denied.get(pf.tp());
            out.add(refused != null ? refused : read.get(next++));
        }
        return out;
    }
}
