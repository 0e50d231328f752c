package io.raftline.tests.sdk;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** What the SDK system tests share: topics that are ready to use, the batches a broker stored, reading a partition. */
final class SdkSupport {

    private SdkSupport() {
    }

    /** Creates a topic and waits until every partition has a leader and a full ISR. */
    static void createTopic(Admin admin, String topic, int partitions, int replicationFactor, Map<String, String> configs)
        throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) replicationFactor).configs(configs)))
            .all().get(60, TimeUnit.SECONDS);
        TestCluster.await(() -> {
            try {
                List<TopicPartitionInfo> ps = describe(admin, topic);
                return ps.size() == partitions
                    && ps.stream().allMatch(p -> p.leader() != null && p.isr().size() == replicationFactor);
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(60), topic + " to have leaders and full ISRs");
    }

    static List<TopicPartitionInfo> describe(Admin admin, String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions();
    }

    /**
     * The record batches {@code node} holds for a partition, read from its segment files (the bytes as the broker
     * stored them, so batch boundaries, counts and codecs are the producer's).
     */
    static List<RecordBatch> storedBatches(TestNode node, String topic, int partition) {
        Path dir = node.dir().resolve("data").resolve(topic + "-" + partition);
        List<RecordBatch> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path segment : files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList()) {
                ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(segment));
                // Stop at the end of the whole batches (a segment file may be preallocated or mid-append).
                buf.limit(Records.wholeBatchBytes(buf));
                for (RecordBatch b : Records.batches(buf)) {
                    out.add(b);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** Reads {@code tp} from the beginning to its end offset at the time of the call (within the timeout). */
    static <K, V> List<ConsumerRecord<K, V>> readAll(RaftlineConsumer<K, V> consumer, TopicPartition tp, Duration timeout) {
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        long end = consumer.endOffsets(List.of(tp)).get(tp);
        List<ConsumerRecord<K, V>> out = new ArrayList<>();
        TestCluster.await(() -> {
            for (ConsumerRecord<K, V> r : consumer.poll(Duration.ofMillis(200))) {
                out.add(r);
            }
            return consumer.position(tp) >= end;
        }, timeout, "reading " + tp + " up to offset " + end);
        return out;
    }
}
