package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.record.CompressionType;
import io.raftline.record.RecordBatch;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.Records;
import io.raftline.record.TimestampType;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What DescribeProducers reads: each producer's epoch, last sequence and newest batch's timestamp. */
class ProducerStateManagerTest {

    private static RecordBatch batch(long producerId, short epoch, int baseSequence, int records, long timestampMs) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0L, producerId, epoch,
            baseSequence, 1024);
        for (int i = 0; i < records; i++) {
            b.append(timestampMs + i, null, ("v" + i).getBytes(StandardCharsets.UTF_8), null);
        }
        return Records.batches(b.build()).iterator().next();
    }

    @Test
    void activeProducersListEachProducersLatestBatchByProducerId() {
        ProducerStateManager state = new ProducerStateManager();
        assertThat(state.activeProducers()).isEmpty();
        state.update(batch(9, (short) 0, 0, 3, 1_000), 0, 2);
        state.update(batch(4, (short) 2, 0, 1, 2_000), 3, 3);
        state.update(batch(9, (short) 0, 3, 2, 3_000), 4, 5);
        // a producer that bumped its epoch starts again at sequence 0
        state.update(batch(4, (short) 3, 0, 2, 4_000), 6, 7);
        // batches without a producer id are not a producer's
        state.update(batch(-1, (short) -1, -1, 1, 5_000), 8, 8);
        assertThat(state.activeProducers()).containsExactly(
            new ProducerStateManager.ActiveProducer(4, (short) 3, 1, 4_001),
            new ProducerStateManager.ActiveProducer(9, (short) 0, 4, 3_001));
    }
}
