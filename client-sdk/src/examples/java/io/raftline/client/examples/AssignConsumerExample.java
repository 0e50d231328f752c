package io.raftline.client.examples;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.consumer.Consumer;
import io.raftline.client.consumer.ConsumerConfig;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.errors.WakeupException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

/**
 * Reads every partition of a topic from the beginning without a group (assign mode), until Ctrl-C; the shutdown
 * hook uses {@code wakeup()} to end the blocked poll. Run: {@code AssignConsumerExample [bootstrap] [topic]}.
 */
public final class AssignConsumerExample {

    private AssignConsumerExample() {
    }

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        String bootstrap = args.length > 0 ? args[0] : "127.0.0.1:9092";
        String topic = args.length > 1 ? args[1] : "orders";

        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Consumer<String, String> consumer = new RaftlineConsumer<>(props, new StringDeserializer(), new StringDeserializer());
        Thread main = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.wakeup();
            try {
                main.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        try {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream().map(p -> p.topicPartition()).toList();
            consumer.assign(partitions);
            while (true) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofSeconds(1))) {
                    System.out.println(r.partition() + "\t" + r.offset() + "\t" + r.key() + "\t" + r.value());
                }
            }
        } catch (WakeupException e) {
            // Shutting down.
        } finally {
            consumer.close();
        }
    }
}
