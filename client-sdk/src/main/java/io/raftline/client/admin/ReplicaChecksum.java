package io.raftline.client.admin;

import io.raftline.client.common.TopicPartition;

/**
 * One replica's CRC32C over its stored batches in an offset range, from {@link Admin#replicaChecksums}. A follower
 * stores the leader's batches byte for byte, so replicas that agree on [{@code fromOffset}, {@code toOffset}) have
 * equal checksums over it.
 *
 * @param brokerId       the broker holding the replica
 * @param partition      the partition
 * @param fromOffset     the first covered batch's base offset
 * @param toOffset       one past the last covered batch's last offset
 * @param crc32c         over the covered batches' bytes
 * @param batches        how many batches were covered
 * @param logStartOffset that replica's log start
 * @param highWatermark  that replica's high watermark (the range never goes past it)
 * @param error          why there is no checksum (no such replica, storage offline), or null
 */
public record ReplicaChecksum(int brokerId, TopicPartition partition, long fromOffset, long toOffset, long crc32c,
                              long batches, long logStartOffset, long highWatermark, String error) {
}
