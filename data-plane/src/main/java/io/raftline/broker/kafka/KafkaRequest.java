package io.raftline.broker.kafka;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One parsed request of a Kafka connection: its header, its body (Kafka's own message class), the frame's size (what
 * the produce admission counts) and the client's address ("/127.0.0.1", as group descriptions show it).
 */
record KafkaRequest(RequestHeader header, AbstractRequest body, int sizeBytes, String clientHost) {

    ApiKeys apiKey() {
        return header.apiKey();
    }

    short version() {
        return header.apiVersion();
    }
}
