package io.raftline.client.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.errors.OffsetOutOfRangeException;
import io.raftline.client.errors.UnknownTopicOrPartitionException;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.client.testing.FakeCluster;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Admin#deleteRecords}: to each partition's leader, per-partition outcomes, a leader change retried. */
@Timeout(60)
class AdminDeleteRecordsTest {

    private FakeCluster cluster;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        cluster = FakeCluster.start(2);
        cluster.createTopic("t", 2); // partition 0 led by broker 1, partition 1 by broker 2
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(Map.of("bootstrap.servers", cluster.bootstrap()),
            new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("t", 0, null, "v" + i)).get(10, TimeUnit.SECONDS);
                producer.send(new ProducerRecord<>("t", 1, null, "v" + i)).get(10, TimeUnit.SECONDS);
            }
        }
        admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrap(), "retry.backoff.ms", 10, "default.api.timeout.ms", 5000));
    }

    @AfterEach
    void stop() throws Exception {
        admin.close();
        cluster.close();
    }

    private static Throwable cause(Throwable e) {
        return e instanceof ExecutionException ? e.getCause() : e;
    }

    private long lowWatermark(TopicPartition tp, long offset) throws Exception {
        return admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(offset))).lowWatermarks().get(tp).get(10, TimeUnit.SECONDS)
            .lowWatermark();
    }

    @Test
    void eachLeaderMovesItsLogStartAndMinusOneMeansTheHighWatermark() throws Exception {
        TopicPartition p0 = new TopicPartition("t", 0);
        TopicPartition p1 = new TopicPartition("t", 1);
        Map<TopicPartition, RecordsToDelete> request = new LinkedHashMap<>();
        request.put(p0, RecordsToDelete.beforeOffset(4));
        request.put(p1, RecordsToDelete.beforeOffset(-1));
        DeleteRecordsResult r = admin.deleteRecords(request);
        r.all().get(10, TimeUnit.SECONDS);
        assertThat(r.lowWatermarks().get(p0).get().lowWatermark()).isEqualTo(4);
        assertThat(r.lowWatermarks().get(p1).get().lowWatermark()).isEqualTo(10);
        assertThat(cluster.logStartOffset("t", 0)).isEqualTo(4);
    }

    @Test
    void aLeaderThatMovedIsFoundAgain() throws Exception {
        TopicPartition p0 = new TopicPartition("t", 0);
        assertThat(lowWatermark(p0, 2)).isEqualTo(2);
        cluster.moveLeader("t", 0, 2); // broker 1 now answers NOT_LEADER; the call finds broker 2
        assertThat(lowWatermark(p0, 6)).isEqualTo(6);
    }

    @Test
    void anUnknownPartitionOrAnOffsetPastTheEndFailsOnlyItself() throws Exception {
        TopicPartition ok = new TopicPartition("t", 1);
        TopicPartition beyond = new TopicPartition("t", 0);
        TopicPartition noTopic = new TopicPartition("missing", 0);
        TopicPartition noPartition = new TopicPartition("t", 9);
        Map<TopicPartition, RecordsToDelete> request = new LinkedHashMap<>();
        request.put(ok, RecordsToDelete.beforeOffset(3));
        request.put(beyond, RecordsToDelete.beforeOffset(11));
        request.put(noTopic, RecordsToDelete.beforeOffset(1));
        request.put(noPartition, RecordsToDelete.beforeOffset(1));
        Map<TopicPartition, CompletableFuture<DeletedRecords>> r = admin.deleteRecords(request).lowWatermarks();
        assertThat(r.get(ok).get(10, TimeUnit.SECONDS).lowWatermark()).isEqualTo(3);
        assertThatThrownBy(() -> r.get(beyond).get(10, TimeUnit.SECONDS)).satisfies(e -> assertThat(cause(e))
            .isInstanceOf(OffsetOutOfRangeException.class).hasMessageContaining("high watermark"));
        assertThatThrownBy(() -> r.get(noTopic).get(10, TimeUnit.SECONDS)).satisfies(e -> assertThat(cause(e))
            .isInstanceOf(UnknownTopicOrPartitionException.class).hasMessageContaining("'missing' does not exist"));
        assertThatThrownBy(() -> r.get(noPartition).get(10, TimeUnit.SECONDS)).satisfies(e -> assertThat(cause(e))
            .isInstanceOf(UnknownTopicOrPartitionException.class).hasMessageContaining("Partition 9"));
        assertThat(cluster.logStartOffset("t", 0)).as("nothing deleted").isZero();
    }
}
