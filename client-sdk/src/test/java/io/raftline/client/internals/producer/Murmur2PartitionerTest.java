package io.raftline.client.internals.producer;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.common.Cluster;
import io.raftline.client.common.Node;
import io.raftline.client.common.PartitionInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class Murmur2PartitionerTest {

    /** Hashes published by Kafka's own UtilsTest, librdkafka's Java-compatible murmur2 and Akka's Kafka-compat test. */
    @ParameterizedTest
    @CsvSource({
        "21, -973932308",
        "foobar, -790332482",
        "a-little-bit-long-string, -985981536",
        "a-little-bit-longer-string, -1486304829",
        "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8, -58897971",
        "abc, 479470107",
        "1, -1993445489",
        "12, 126087238",
        "123, -267702483",
        "1234, -1614185708",
        "12345, -1188365604",
        "kafka, -798503068",
    })
    void hashMatchesKafka(String key, int expected) {
        assertThat(Murmur2.hash(key.getBytes(StandardCharsets.UTF_8))).isEqualTo(expected);
    }

    /** The partition a Kafka producer picks, (murmur2 &amp; 0x7fffffff) % n, for 3, 6, 10, 12 and 50 partitions. */
    @ParameterizedTest
    @CsvSource({
        "21, 0, 0, 0, 0, 40",
        "foobar, 0, 0, 6, 6, 16",
        "a-little-bit-long-string, 2, 2, 2, 8, 12",
        "a-little-bit-longer-string, 2, 5, 9, 11, 19",
        "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8, 2, 5, 7, 5, 27",
        "abc, 0, 3, 7, 3, 7",
        "1, 0, 3, 9, 3, 9",
        "12, 1, 4, 8, 10, 38",
        "123, 2, 5, 5, 5, 15",
        "12345, 2, 2, 4, 8, 44",
        "kafka, 1, 4, 0, 4, 30",
    })
    void keysLandWhereKafkaPutsThem(String key, int p3, int p6, int p10, int p12, int p50) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int[] counts = {3, 6, 10, 12, 50};
        int[] expected = {p3, p6, p10, p12, p50};
        for (int i = 0; i < counts.length; i++) {
            BuiltInPartitioner partitioner = new BuiltInPartitioner(16384, false, new SplittableRandom(1));
            assertThat(partitioner.partition("t", key, bytes, "v", new byte[1], cluster("t", counts[i])))
                .as("%s over %d partitions", key, counts[i]).isEqualTo(expected[i]);
        }
    }

    @Test
    void nullKeysStickUntilBatchSizeThenMove() {
        long seed = 42;
        System.out.println("seed " + seed);
        BuiltInPartitioner partitioner = new BuiltInPartitioner(100, false, new SplittableRandom(seed));
        Cluster cluster = cluster("t", 4);
        int first = partitioner.partition("t", null, null, null, new byte[10], cluster);
        for (int i = 0; i < 9; i++) {
            assertThat(partitioner.partition("t", null, null, null, new byte[10], cluster)).isEqualTo(first);
        }
        int next = partitioner.partition("t", null, null, null, new byte[10], cluster);
        assertThat(next).isNotEqualTo(first);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 400; i++) {
            seen.add(partitioner.partition("t", null, null, null, new byte[10], cluster));
        }
        assertThat(seen).containsExactlyInAnyOrder(0, 1, 2, 3);
    }

    @Test
    void ignoreKeysSpreadsKeyedRecordsToo() {
        BuiltInPartitioner partitioner = new BuiltInPartitioner(1, true, new SplittableRandom(7));
        Cluster cluster = cluster("t", 8);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            seen.add(partitioner.partition("t", "k", "k".getBytes(StandardCharsets.UTF_8), "v", new byte[1], cluster));
        }
        assertThat(seen.size()).isGreaterThan(1);
    }

    static Cluster cluster(String topic, int partitions) {
        Node node = new Node(1, "localhost", 9092, null);
        List<PartitionInfo> infos = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            infos.add(new PartitionInfo(topic, p, node, 0, List.of(node), List.of(node), List.of()));
        }
        return new Cluster("c", List.of(node), infos, node, Map.of(), Set.of());
    }
}
