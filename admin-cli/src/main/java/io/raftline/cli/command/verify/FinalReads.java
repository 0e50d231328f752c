package io.raftline.cli.command.verify;

import io.raftline.cli.Errors;
import io.raftline.cli.verify.Event;
import io.raftline.cli.verify.History;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.ConsumerRecords;
import io.raftline.client.consumer.RaftlineConsumer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The final reads: an assign-mode consumer (no group) that reads every partition from its log start up to the end
 * offset the cluster gives once it has healed, recording each record in the history as a final read. They are what
 * {@code lost} is judged against.
 */
final class FinalReads {

    static final String PROCESS = "final-reader";

    /** Whether every partition was read to its end, and if not, why. */
    record Result(boolean complete, long records, String problem) {
    }

    private FinalReads() {
    }

    /** Reads until every partition reached its end offset, or nothing arrived for {@code idleTimeout}. */
    static Result read(Properties props, List<TopicPartition> partitions, History history, Duration idleTimeout) {
        long records = 0;
        try (RaftlineConsumer<String, String> consumer = new RaftlineConsumer<>(props, new StringDeserializer(),
            new StringDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions));
            Map<TopicPartition, Long> next = new HashMap<>();
            long lastProgressNs = history.nowNs();
            while (!done(partitions, end, next, consumer)) {
                ConsumerRecords<String, String> batch = consumer.poll(Duration.ofMillis(200));
                long now = history.nowNs();
                if (batch.isEmpty()) {
                    if (now - lastProgressNs > idleTimeout.toNanos()) {
                        return new Result(false, records, "the final reads stopped short of the end offsets "
                            + remaining(partitions, end, next) + " (nothing arrived for " + idleTimeout.toSeconds() + " s)");
                    }
                    continue;
                }
                lastProgressNs = now;
                for (ConsumerRecord<String, String> r : batch) {
                    history.add(new Event.Poll(PROCESS, true, 0, r.topic(), r.partition(), r.offset(), r.value(), now));
                    next.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
                    records++;
                }
            }
            return new Result(true, records, null);
        } catch (RuntimeException e) {
            return new Result(false, records, "the final reads failed: " + Errors.describe(e));
        }
    }

    private static boolean done(List<TopicPartition> partitions, Map<TopicPartition, Long> end, Map<TopicPartition, Long> next,
                                RaftlineConsumer<String, String> consumer) {
        for (TopicPartition tp : partitions) {
            long target = end.getOrDefault(tp, 0L);
            if (next.getOrDefault(tp, 0L) < target && consumer.position(tp) < target) {
                return false;
            }
        }
        return true;
    }

    private static Map<String, String> remaining(List<TopicPartition> partitions, Map<TopicPartition, Long> end,
                                                 Map<TopicPartition, Long> next) {
        Map<String, String> out = new TreeMap<>();
        for (TopicPartition tp : partitions) {
            long target = end.getOrDefault(tp, 0L);
            long at = next.getOrDefault(tp, 0L);
            if (at < target) {
                out.put(tp.topic() + "-" + tp.partition(), at + "/" + target);
            }
        }
        return out;
    }
}
