package io.raftline.client.admin;

import io.raftline.client.common.TopicPartition;

/**
 * Offsets and size of one replica's log, from {@link Admin#describeLogs}.
 *
 * @param brokerId       the broker holding the replica
 * @param partition      the partition
 * @param isLeader       whether that broker leads it
 * @param logStartOffset the first offset still in the log
 * @param logEndOffset   the offset after the last record
 * @param highWatermark  the high watermark as that broker knows it
 * @param sizeBytes      bytes on disk
 * @param logDir         the broker's log.dirs entry that holds the replica (null when the broker did not say)
 */
public record ReplicaLogInfo(int brokerId, TopicPartition partition, boolean isLeader, long logStartOffset, long logEndOffset,
                             long highWatermark, long sizeBytes, String logDir) {

    /** A replica whose log dir is not known. */
    public ReplicaLogInfo(int brokerId, TopicPartition partition, boolean isLeader, long logStartOffset, long logEndOffset,
                          long highWatermark, long sizeBytes) {
        this(brokerId, partition, isLeader, logStartOffset, logEndOffset, highWatermark, sizeBytes, null);
    }
}
