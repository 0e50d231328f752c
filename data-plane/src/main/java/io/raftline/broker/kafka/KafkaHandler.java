package io.raftline.broker.kafka;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;

/** What answers a Kafka connection's requests ({@link KafkaApis} in a broker). */
interface KafkaHandler {

    /**
     * The answer to {@code request}, never blocking; a null answer means none is sent (a produce with acks=0). Only
     * requests {@link SupportedApis} lists arrive here.
     */
    CompletableFuture<ApiMessage> handle(KafkaRequest request);
}
