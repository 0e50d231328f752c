package io.raftline.cli.verify;

/**
 * One operation of a {@code raftline verify} run, as the {@link History} records it. Times are nanoseconds of the
 * history's monotonic clock since the history started ({@link History#startWallMs()} maps them to the wall clock).
 */
public sealed interface Event {

    /** When the operation completed (or happened). */
    long atNs();

    /** What a producer asked for: the checked {@code acks=all} workload, or the lossy {@code acks=1} one. */
    enum Acks {
        ALL, ONE
    }

    /**
     * One send and its outcome: acknowledged at {@code partition}/{@code offset} ({@code error} null), or failed
     * ({@code error} set, partition and offset -1; the record may still have been stored).
     */
    record Send(String process, Acks acks, String topic, String value, long invokeNs, long atNs, int partition, long offset,
                String error) implements Event {
        public boolean acked() {
            return error == null;
        }
    }

    /**
     * One record returned by a poll. {@code assignment} numbers the reader's ownership of the partition: it changes
     * whenever the partition is (re)assigned to that reader, so offsets need only increase within one value of it.
     * {@code finalRead} marks the reads from the start after the cluster healed, which decide what was lost.
     */
    record Poll(String process, boolean finalRead, long assignment, String topic, int partition, long offset, String value,
                long atNs) implements Event {
    }

    /** One partition's offset in a commit of a consumer group, invoked at {@code invokeNs}, answered at {@code atNs}. */
    record Commit(String process, String group, String topic, int partition, long offset, long invokeNs, long atNs,
                  String error) implements Event {
        public boolean ok() {
            return error == null;
        }
    }

    /** A group's committed offset as read back from the cluster (after the workload). */
    record CommittedRead(String group, String topic, int partition, long offset, long atNs) implements Event {
    }

    /**
     * One replica's CRC32C over its batches in [{@code fromOffset}, {@code toOffset}) of a partition, taken after
     * the final reads (the admin call {@code replicaChecksums}); replicas asked for the same range must agree.
     */
    record ReplicaChecksum(String topic, int partition, int broker, long fromOffset, long toOffset, long crc32c,
                           long atNs) implements Event {
    }

    /** A phase boundary of the run: {@link #WORKLOAD_START}, {@link #WORKLOAD_END}, ... */
    record Phase(String name, long atNs) implements Event {
        public static final String WORKLOAD_START = "workload-start";
        public static final String WORKLOAD_END = "workload-end";
        public static final String HEALED = "healed";
        public static final String FINAL_READS_END = "final-reads-end";
    }
}
