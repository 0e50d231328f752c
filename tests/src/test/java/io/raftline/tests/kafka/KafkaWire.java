package io.raftline.tests.kafka;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * One Kafka request over a plain TCP connection to a broker's Kafka listener, for requests kafka-clients' Admin no
 * longer sends (the legacy AlterConfigs) or sends only from inside the consumer (OffsetForLeaderEpoch).
 */
final class KafkaWire {

    private KafkaWire() {
    }

    static AbstractResponse send(int port, AbstractRequest request) throws IOException {
        ApiKeys key = request.apiKey();
        short version = request.version();
        RequestHeader header = new RequestHeader(key, version, "kafka-wire-test", 7);
        ByteBuffer frame = request.serializeWithHeader(header);
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            byte[] bytes = new byte[frame.remaining()];
            frame.get(bytes);
            out.writeInt(bytes.length);
            out.write(bytes);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            ByteBuffer buffer = ByteBuffer.wrap(answer);
            ResponseHeader responseHeader = ResponseHeader.parse(buffer, key.responseHeaderVersion(version));
            if (responseHeader.correlationId() != 7) {
                throw new IOException("answer to correlation id " + responseHeader.correlationId() + ", not 7");
            }
            return AbstractResponse.parseResponse(key, new org.apache.kafka.common.protocol.ByteBufferAccessor(buffer), version);
        }
    }
}
