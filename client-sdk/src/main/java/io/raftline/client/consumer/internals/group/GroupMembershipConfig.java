package io.raftline.client.consumer.internals.group;

import io.raftline.grpc.TransportSecurity;
import io.raftline.client.consumer.ConsumerConfig;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor;
import io.raftline.client.errors.ConfigException;
import java.util.ArrayList;
import java.util.List;

/**
 * The settings the group protocol uses, from the consumer's configuration.
 *
 * @param groupId             group.id
 * @param clientId            client.id (the prefix of the member id the coordinator hands out)
 * @param sessionTimeoutMs    session.timeout.ms
 * @param heartbeatIntervalMs heartbeat.interval.ms
 * @param maxPollIntervalMs   max.poll.interval.ms (also the rebalance timeout sent in JoinGroup)
 * @param requestTimeoutMs    request.timeout.ms, for every call but JoinGroup
 * @param retryBackoffMs      retry.backoff.ms
 */
public record GroupMembershipConfig(String groupId, String clientId, int sessionTimeoutMs, int heartbeatIntervalMs,
                                    int maxPollIntervalMs, int requestTimeoutMs, long retryBackoffMs,
                                    TransportSecurity security) {

    /** Plaintext channels to the coordinator. */
    public GroupMembershipConfig(String groupId, String clientId, int sessionTimeoutMs, int heartbeatIntervalMs,
                                 int maxPollIntervalMs, int requestTimeoutMs, long retryBackoffMs) {
        this(groupId, clientId, sessionTimeoutMs, heartbeatIntervalMs, maxPollIntervalMs, requestTimeoutMs, retryBackoffMs,
            TransportSecurity.plaintext());
    }

    public GroupMembershipConfig {
        if (groupId == null || groupId.isEmpty()) {
            throw new IllegalArgumentException("a group needs a group.id");
        }
        if (heartbeatIntervalMs <= 0 || heartbeatIntervalMs >= sessionTimeoutMs) {
            throw new IllegalArgumentException("heartbeat.interval.ms (" + heartbeatIntervalMs
                + ") must be above 0 and below session.timeout.ms (" + sessionTimeoutMs + ")");
        }
        if (maxPollIntervalMs <= 0 || requestTimeoutMs <= 0 || retryBackoffMs < 0) {
            throw new IllegalArgumentException("invalid group settings " + this);
        }
        clientId = clientId == null ? "" : clientId;
    }

    public static GroupMembershipConfig from(ConsumerConfig config) {
        return new GroupMembershipConfig(config.getString(ConsumerConfig.GROUP_ID_CONFIG),
            config.getString(ConsumerConfig.CLIENT_ID_CONFIG), config.getInt(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG),
            config.getInt(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), config.getInt(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG),
            config.getInt(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG), config.getLong(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG),
            io.raftline.client.internals.net.ClientSecurity.from(config));
    }

    /**
     * The assignors {@code partition.assignment.strategy} names, in its order (Kafka names or Kafka class names).
     *
     * @throws ConfigException for an unknown or repeated name, or an empty list
     */
    public static List<ConsumerPartitionAssignor> assignors(ConsumerConfig config) {
        List<ConsumerPartitionAssignor> out = new ArrayList<>();
        for (String name : config.getList(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG)) {
            ConsumerPartitionAssignor a;
            try {
                a = ConsumerPartitionAssignor.forName(name);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, name, e.getMessage());
            }
            if (out.stream().anyMatch(x -> x.name().equals(a.name()))) {
                throw new ConfigException(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, name, "listed twice");
            }
            out.add(a);
        }
        if (out.isEmpty()) {
            throw new ConfigException(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, "", "a group needs at least one assignor");
        }
        return out;
    }
}
