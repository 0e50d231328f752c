package io.raftline.client.internals.producer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * The producer's meters in the application's {@link MeterRegistry}: records sent (a rate in any registry), records
 * that failed, batch retries, and the distribution of batch sizes. With no registry, nothing is recorded.
 */
public final class ProducerMetrics {

    private final Counter recordsSent;
    private final Counter recordErrors;
    private final Counter retries;
    private final DistributionSummary batchSize;

    /** Registers the meters tagged with the client id; a null registry records nothing. */
    public ProducerMetrics(MeterRegistry registry, String clientId) {
        if (registry == null) {
            recordsSent = null;
            recordErrors = null;
            retries = null;
            batchSize = null;
            return;
        }
        Tags tags = Tags.of("client.id", clientId);
        recordsSent = Counter.builder("raftline.producer.records.sent").tags(tags).description("Records acknowledged").register(registry);
        recordErrors = Counter.builder("raftline.producer.record.errors").tags(tags).description("Records that failed").register(registry);
        retries = Counter.builder("raftline.producer.batch.retries").tags(tags).description("Batches re-sent").register(registry);
        batchSize = DistributionSummary.builder("raftline.producer.batch.size").baseUnit("bytes").tags(tags)
            .description("Encoded batch sizes").register(registry);
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

    void batchSize(int bytes) {
        if (batchSize != null) {
            batchSize.record(bytes);
        }
    }
}
