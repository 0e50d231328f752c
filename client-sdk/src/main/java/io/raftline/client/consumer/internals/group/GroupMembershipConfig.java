package io.raftline.client.consumer.internals.group;

import io.raftline.client.consumer.ConsumerConfig;

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
                                    int maxPollIntervalMs, int requestTimeoutMs, long retryBackoffMs) {

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
            config.getInt(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG), config.getLong(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG));
    }
}
