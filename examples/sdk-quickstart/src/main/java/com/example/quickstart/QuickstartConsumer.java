package com.example.quickstart;

import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.consumer.ConsumerConfig;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.RaftlineConsumer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;

/**
 * Joins the group {@code quickstart}, reads the topic from its beginning, prints the first record it gets, commits and
 * returns; fails if none comes within a minute: {@code QuickstartConsumer BOOTSTRAP TOPIC}.
 */
public final class QuickstartConsumer {

    private QuickstartConsumer() {
    }

    public static void main(String[] args) {
        String bootstrap = args[0];
        String topic = args[1];
        Properties props = new Properties();
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.setProperty(ConsumerConfig.GROUP_ID_CONFIG, "quickstart");
        props.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (RaftlineConsumer<String, String> consumer = new RaftlineConsumer<>(props, new StringDeserializer(),
            new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            Instant deadline = Instant.now().plus(Duration.ofMinutes(1));
            while (Instant.now().isBefore(deadline)) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    System.out.println("received " + r.key() + "=" + r.value() + " from " + r.topic() + "-" + r.partition()
                        + " at offset " + r.offset());
                    consumer.commitSync();
                    return;
                }
            }
        }
        throw new IllegalStateException("no record from " + topic + " within a minute");
    }
}
