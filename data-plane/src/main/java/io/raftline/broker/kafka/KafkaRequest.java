package io.raftline.broker.kafka;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One parsed request of a Kafka connection: its header, its body (Kafka's own message class), the frame's size (what
 * the produce admission counts), the client's address ("/127.0.0.1", as group descriptions show it) and who sent it.
 */
record KafkaRequest(RequestHeader header, AbstractRequest body, int sizeBytes, String clientHost, String principal) {

    KafkaRequest(RequestHeader header, AbstractRequest body, int sizeBytes, String clientHost) {
        this(header, body, sizeBytes, clientHost, io.raftline.grpc.TransportSecurity.ANONYMOUS);
    }

    /** The same request, made by {@code who} (its connection's TLS certificate or SASL session). */
    KafkaRequest by(String who) {
        // most connections are User:ANONYMOUS, as parsed: no copy per request then
        return who.equals(principal) ? this : new KafkaRequest(header, body, sizeBytes, clientHost, who);
    }

    ApiKeys apiKey() {
        return header.apiKey();
    }

    short version() {
        return header.apiVersion();
    }
}
