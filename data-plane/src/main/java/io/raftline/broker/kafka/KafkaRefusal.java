package io.raftline.broker.kafka;

/**
 * A request (or one resource of it) the Kafka listener cannot translate into a Raftline call: answered with Kafka's
 * INVALID_REQUEST and this message, and nothing of it is sent on.
 */
final class KafkaRefusal extends Exception {

    KafkaRefusal(String message) {
        super(message, null, false, false);
    }
}
