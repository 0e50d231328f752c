package io.raftline.client.producer;

/**
 * Called once a sent record is acknowledged or has finally failed. Runs on the producer's I/O thread: keep it short
 * and never block in it.
 */
@FunctionalInterface
public interface Callback {

    /**
     * @param metadata  where the record went (on failure: its partition, offset -1), null if no partition was known
     * @param exception null on success, else why the record was not written
     */
    void onCompletion(RecordMetadata metadata, Exception exception);
}
