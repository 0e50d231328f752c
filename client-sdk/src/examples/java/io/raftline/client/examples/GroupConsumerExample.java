package io.raftline.client.examples;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.consumer.Consumer;
import io.raftline.client.consumer.ConsumerConfig;
import io.raftline.client.consumer.ConsumerRebalanceListener;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.ConsumerRecords;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.errors.WakeupException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A member of a consumer group: subscribes to a topic, gets its share of the partitions from the group coordinator,
 * processes records and commits what it processed (at least once: process, then commit). On a rebalance it commits
 * what it has processed of the partitions it is losing before they move to another member. Start several copies with
 * the same group to share the partitions; Ctrl-C leaves the group cleanly (the shutdown hook calls {@code wakeup()}).
 * Run: {@code GroupConsumerExample [bootstrap] [topic] [group] [maxRecords]} (maxRecords: stop after that many; 0 or
 * absent: run until Ctrl-C).
 */
public final class GroupConsumerExample {

    private GroupConsumerExample() {
    }

    /** Entry point. */
    public static void main(String[] args) {
        String bootstrap = args.length > 0 ? args[0] : "127.0.0.1:9092";
        String topic = args.length > 1 ? args[1] : "orders";
        String group = args.length > 2 ? args[2] : "order-processors";
        long maxRecords = args.length > 3 ? Long.parseLong(args[3]) : 0;
        Consumer<String, String> consumer = create(bootstrap, group);
        Thread main = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.wakeup();
            try {
                main.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        long n = run(consumer, topic, maxRecords, System.out);
        System.err.println("processed " + n + " records");
    }

    /** A consumer in {@code group} that commits by hand after processing. */
    public static Consumer<String, String> create(String bootstrap, String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new RaftlineConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /**
     * Consumes {@code topic} as a group member, printing each record to {@code out}, until {@code maxRecords} were
     * processed ({@code <= 0}: until {@code wakeup()}); then commits, leaves the group and closes the consumer.
     *
     * @return the number of records processed
     */
    public static long run(Consumer<String, String> consumer, String topic, long maxRecords, PrintStream out) {
        // Offsets of the next record to process, per partition this member owns: what a commit writes.
        Map<TopicPartition, OffsetAndMetadata> processed = new HashMap<>();
        long count = 0;
        try {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    // Still the owner here: commit what was processed so the next owner starts right after it.
                    Map<TopicPartition, OffsetAndMetadata> losing = new HashMap<>();
                    for (TopicPartition tp : partitions) {
                        OffsetAndMetadata o = processed.remove(tp);
                        if (o != null) {
                            losing.put(tp, o);
                        }
                    }
                    if (!losing.isEmpty()) {
                        consumer.commitSync(losing);
                    }
                    out.println("# revoked " + partitions);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    out.println("# assigned " + partitions);
                }
            });
            while (maxRecords <= 0 || count < maxRecords) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofSeconds(1));
                for (ConsumerRecord<String, String> r : records) {
                    process(r, out);
                    processed.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    count++;
                }
                if (!records.isEmpty()) {
                    consumer.commitSync(processed);
                }
            }
        } catch (WakeupException e) {
            // Shutting down: fall through to the final commit.
        } finally {
            try {
                if (!processed.isEmpty()) {
                    consumer.commitSync(processed);
                }
            } finally {
                consumer.close();
            }
        }
        return count;
    }

    private static void process(ConsumerRecord<String, String> r, PrintStream out) {
        out.println(r.partition() + "\t" + r.offset() + "\t" + r.key() + "\t" + r.value());
    }
}
