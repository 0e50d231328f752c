package io.raftline.broker.group;

import io.raftline.broker.config.ServerConfig;

/**
 * The coordinator's settings, validated once.
 *
 * @param minSessionTimeoutMs           group.min.session.timeout.ms
 * @param maxSessionTimeoutMs           group.max.session.timeout.ms
 * @param initialRebalanceDelayMs       group.initial.rebalance.delay.ms
 * @param offsetsRetentionMs            offsets.retention.minutes, in ms
 * @param offsetsRetentionCheckIntervalMs how often expired offsets are looked for
 * @param offsetCommitTimeoutMs         offsets.commit.timeout.ms: the longest wait for a write to replicate
 * @param offsetMetadataMaxBytes        the longest metadata string a commit may carry
 */
public record GroupConfig(int minSessionTimeoutMs, int maxSessionTimeoutMs, int initialRebalanceDelayMs,
                          long offsetsRetentionMs, long offsetsRetentionCheckIntervalMs, int offsetCommitTimeoutMs,
                          int offsetMetadataMaxBytes) {

    public static final long DEFAULT_RETENTION_CHECK_INTERVAL_MS = 600_000L;
    public static final int DEFAULT_OFFSET_METADATA_MAX_BYTES = 4096;

    public GroupConfig {
        if (minSessionTimeoutMs < 1 || maxSessionTimeoutMs < minSessionTimeoutMs) {
            throw new IllegalArgumentException("need 1 <= min session timeout (" + minSessionTimeoutMs
                + ") <= max session timeout (" + maxSessionTimeoutMs + ")");
        }
        if (initialRebalanceDelayMs < 0 || offsetsRetentionMs < 1 || offsetsRetentionCheckIntervalMs < 1
            || offsetCommitTimeoutMs < 1 || offsetMetadataMaxBytes < 0) {
            throw new IllegalArgumentException("invalid group config " + this);
        }
    }

    /** Kafka's defaults. */
    public static GroupConfig defaults() {
        return new GroupConfig(6000, 1_800_000, 3000, 10_080L * 60_000L, DEFAULT_RETENTION_CHECK_INTERVAL_MS, 5000,
            DEFAULT_OFFSET_METADATA_MAX_BYTES);
    }

    /** The settings a node's configuration names. */
    public static GroupConfig from(ServerConfig config) {
        return new GroupConfig(config.getInt("group.min.session.timeout.ms"), config.getInt("group.max.session.timeout.ms"),
            config.getInt("group.initial.rebalance.delay.ms"), config.getInt("offsets.retention.minutes") * 60_000L,
            DEFAULT_RETENTION_CHECK_INTERVAL_MS, config.getInt("offsets.commit.timeout.ms"), DEFAULT_OFFSET_METADATA_MAX_BYTES);
    }
}
