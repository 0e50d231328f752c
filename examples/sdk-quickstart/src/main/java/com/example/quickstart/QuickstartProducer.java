package com.example.quickstart;

import io.raftline.client.producer.ProducerConfig;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.client.producer.RecordMetadata;
import io.raftline.client.common.serialization.StringSerializer;
import java.util.Properties;

/** Sends one record and waits for the cluster to acknowledge it: {@code QuickstartProducer BOOTSTRAP TOPIC [VALUE]}. */
public final class QuickstartProducer {

    private QuickstartProducer() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String value = args.length > 2 ? args[2] : "hello, raftline";
        Properties props = new Properties();
        props.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(props, new StringSerializer(), new StringSerializer())) {
            RecordMetadata sent = producer.send(new ProducerRecord<>(topic, "greeting", value)).get();
            System.out.println("sent to " + sent.topic() + "-" + sent.partition() + " at offset " + sent.offset());
        }
    }
}
