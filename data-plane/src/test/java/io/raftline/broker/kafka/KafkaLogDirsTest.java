package io.raftline.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.protocol.broker.DescribeLogsResponse;
import java.util.List;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.junit.jupiter.api.Test;

/**
 * DescribeLogDirs answers group a broker's replicas by directory, then by topic in the order topics first appear, as
 * Kafka's do; built in one pass (each topic found by name, not by a scan of the directory's topics: at 14,000
 * replicas of 10,000 topics on a broker the scan made each answer take seconds).
 */
class KafkaLogDirsTest {

    private static DescribeLogsResponse.ReplicaLog log(String dir, String topic, int partition, long size) {
        return DescribeLogsResponse.ReplicaLog.newBuilder().setLogDir(dir).setTopic(topic).setPartition(partition)
            .setSizeBytes(size).setLogEndOffset(10).setHighWatermark(7).build();
    }

    @Test
    void replicasAreGroupedByDirectoryThenTopicInFirstSeenOrder() {
        DescribeLogsResponse r = DescribeLogsResponse.newBuilder()
            .addReplicas(log("/d1", "b", 0, 100))
            .addReplicas(log("/d2", "a", 1, 200))
            .addReplicas(log("/d1", "a", 0, 300))
            .addReplicas(log("/d1", "b", 2, 400))
            .addReplicas(log("", "c", 0, 0)) // a replica this broker does not hold
            .build();
        DescribeLogDirsResponseData out = (DescribeLogDirsResponseData) KafkaAdminApis.describeLogDirsResponse(r, (short) 4);

        assertThat(out.results()).extracting(DescribeLogDirsResponseData.DescribeLogDirsResult::logDir)
            .containsExactly("/d1", "/d2");
        DescribeLogDirsResponseData.DescribeLogDirsResult d1 = out.results().get(0);
        assertThat(d1.topics()).extracting(DescribeLogDirsResponseData.DescribeLogDirsTopic::name).containsExactly("b", "a");
        assertThat(d1.topics().get(0).partitions())
            .extracting(DescribeLogDirsResponseData.DescribeLogDirsPartition::partitionIndex).containsExactly(0, 2);
        assertThat(d1.topics().get(0).partitions())
            .extracting(DescribeLogDirsResponseData.DescribeLogDirsPartition::partitionSize).containsExactly(100L, 400L);
        assertThat(d1.topics().get(1).partitions().get(0).offsetLag()).isZero();
        assertThat(out.results().get(1).topics()).extracting(DescribeLogDirsResponseData.DescribeLogDirsTopic::name)
            .containsExactly("a");
    }

    @Test
    void aBrokerOfManyTopicsListsEachTopicOnce() {
        DescribeLogsResponse.Builder r = DescribeLogsResponse.newBuilder();
        for (int i = 0; i < 14_000; i++) {
            r.addReplicas(log("/d", "scale-" + (i % 10_000), i / 10_000, i));
        }
        DescribeLogDirsResponseData out = (DescribeLogDirsResponseData) KafkaAdminApis.describeLogDirsResponse(r.build(), (short) 4);
        List<DescribeLogDirsResponseData.DescribeLogDirsTopic> topics = out.results().get(0).topics();
        assertThat(topics).hasSize(10_000);
        assertThat(topics.get(3).name()).isEqualTo("scale-3");
        assertThat(topics.get(3).partitions()).extracting(DescribeLogDirsResponseData.DescribeLogDirsPartition::partitionIndex)
            .containsExactly(0, 1);
        assertThat(topics.get(9_999).partitions()).hasSize(1);
    }
}
