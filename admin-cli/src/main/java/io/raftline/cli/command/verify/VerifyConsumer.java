package io.raftline.cli.command.verify;

import io.raftline.cli.Errors;
import io.raftline.cli.verify.Event;
import io.raftline.cli.verify.History;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.consumer.ConsumerRebalanceListener;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.ConsumerRecords;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.errors.WakeupException;
import io.raftline.common.Time;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One consumer of the workload's group, on its own thread: polls, records every record with the number of its
 * partition's current assignment, then commits what it processed (commitSync, each partition's outcome recorded).
 * The polling thread owns the consumer and the assignment map; {@link #stop} only sets a flag and wakes it.
 */
final class VerifyConsumer implements Runnable {

    private static final Duration POLL = Duration.ofMillis(200);

    private final String name;
    private final String group;
    private final Properties props;
    private final List<String> topics;
    private final History history;
    private final Time time;
    private final Map<TopicPartition, Long> assignment = new HashMap<>();
    private long assignments;
    private volatile boolean stopping;
    private volatile RaftlineConsumer<String, String> consumer;
    final AtomicLong polled = new AtomicLong();
    final AtomicLong commitFailures = new AtomicLong();
    private volatile String firstError;

    VerifyConsumer(String name, String group, Properties props, List<String> topics, History history, Time time) {
        this.name = name;
        this.group = group;
        this.props = props;
        this.topics = List.copyOf(topics);
        this.history = history;
        this.time = time;
    }

    void stop() {
        stopping = true;
        RaftlineConsumer<String, String> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    String firstError() {
        return firstError;
    }

    @Override
    public void run() {
        try (RaftlineConsumer<String, String> c = new RaftlineConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer = c;
            c.subscribe(topics, new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    partitions.forEach(assignment::remove);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    partitions.forEach(tp -> assignment.put(tp, ++assignments));
                }
            });
            while (!stopping) {
                try {
                    pollAndCommit(c);
                } catch (WakeupException e) {
                    break;
                } catch (RuntimeException e) {
                    // a fault under way: note it and go on polling, as an application would
                    if (firstError == null) {
                        firstError = name + ": " + Errors.describe(e);
                    }
                    time.sleep(100);
                }
            }
            c.close(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (WakeupException e) {
            // stopped while subscribing or closing
        } catch (RuntimeException e) {
            if (firstError == null) {
                firstError = name + ": " + Errors.describe(e);
            }
        }
    }

    private void pollAndCommit(RaftlineConsumer<String, String> c) {
        ConsumerRecords<String, String> records = c.poll(POLL);
        if (records.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> processed = new LinkedHashMap<>();
        for (ConsumerRecord<String, String> r : records) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            history.add(new Event.Poll(name, false, assignment.getOrDefault(tp, -1L), r.topic(), r.partition(), r.offset(), r.value(),
                history.nowNs()));
            processed.put(tp, new OffsetAndMetadata(r.offset() + 1));
        }
        polled.addAndGet(records.count());
        long invokeNs = history.nowNs();
        String error = null;
        try {
            c.commitSync(processed);
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            error = Errors.describe(e);
            commitFailures.incrementAndGet();
        }
        long atNs = history.nowNs();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : processed.entrySet()) {
            history.add(new Event.Commit(name, group, e.getKey().topic(), e.getKey().partition(), e.getValue().offset(), invokeNs, atNs,
                error));
        }
    }
}
