package io.raftline.client.internals.producer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * The producer's meters in the application's {@link MeterRegistry}: records sent (a rate in any registry), records
 * that failed, batch retries, and the distributions of batch sizes in bytes and in records. With no registry,
 * nothing is recorded. In Prometheus these are {@code raftline_client_producer_records_sent_total},
 * {@code raftline_client_producer_record_errors_total}, {@code raftline_client_producer_batch_retries_total},
 * {@code raftline_client_producer_batch_size_bytes} and {@code raftline_client_producer_batch_records}, each with a
 * {@code client_id} label; the request latency is {@link io.raftline.client.internals.net.RequestMetrics}'.
 */
public final class ProducerMetrics {

    private final Counter recordsSent;
    private final Counter recordErrors;
    private final Counter retries;
    private final DistributionSummary batchSize;
    private final DistributionSummary batchRecords;

    /** Registers the meters tagged with the client id; a null registry records nothing. */
    public ProducerMetrics(MeterRegistry registry, String clientId) {
        if (registry == null) {
            recordsSent = null;
            recordErrors = null;
            retries = null;
            batchSize = null;
            batchRecords = null;
            return;
        }
        Tags tags = Tags.of("client.id", clientId);
        recordsSent = Counter.builder("raftline.client.producer.records.sent").tags(tags)
            .description("Records acknowledged").register(registry);
        recordErrors = Counter.builder("raftline.client.producer.record.errors").tags(tags)
            .description("Records that failed").register(registry);
        retries = Counter.builder("raftline.client.producer.batch.retries").tags(tags).description("Batches re-sent").register(registry);
        batchSize = DistributionSummary.builder("raftline.client.producer.batch.size").baseUnit("bytes").tags(tags)
            .description("Encoded batch sizes").register(registry);
        batchRecords = DistributionSummary.builder("raftline.client.producer.batch.records").tags(tags)
            .description("Records per batch sent").register(registry);
    }

    void recordsSent(int n) {
        if (recordsSent != null) {
            recordsSent.increment(n);
        }
    }

    void recordErrors(int n) {
        if (recordErrors != null) {
            recordErrors.increment(n);
        }
    }

    void retry() {
        if (retries != null) {
            retries.increment();
        }
    }

    void batchSent(int bytes, int records) {
        if (batchSize != null) {
            batchSize.record(bytes);
            batchRecords.record(records);
        }
    }
}
