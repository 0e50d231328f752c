package io.raftline.client.examples;

import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.producer.Producer;
import io.raftline.client.producer.ProducerConfig;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.client.producer.RecordMetadata;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends keyed records with the default (Kafka 4) producer settings: acks=all, idempotent, linger 5 ms.
 * Run: {@code ProducerExample [bootstrap] [topic] [count]}.
 */
public final class ProducerExample {

    private ProducerExample() {
    }

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        String bootstrap = args.length > 0 ? args[0] : "127.0.0.1:9092";
        String topic = args.length > 1 ? args[1] : "orders";
        int count = args.length > 2 ? Integer.parseInt(args[2]) : 100;

        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "producer-example");
        AtomicInteger failed = new AtomicInteger();
        try (Producer<String, String> producer = new RaftlineProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "customer-" + (i % 10), "order " + i), (RecordMetadata md, Exception e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                        System.err.println("error: " + e.getMessage());
                    }
                });
            }
            producer.flush();
            RecordMetadata last = producer.send(new ProducerRecord<>(topic, "customer-0", "last order")).get();
            System.out.println("last record went to " + last.topic() + "-" + last.partition() + " at offset " + last.offset());
        }
        System.exit(failed.get() == 0 ? 0 : 1);
    }
}
