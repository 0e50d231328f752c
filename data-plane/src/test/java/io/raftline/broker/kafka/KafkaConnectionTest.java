package io.raftline.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.raftline.broker.rpc.ProduceAdmission;
import io.raftline.common.config.HostPort;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Kafka listener's framing over real TCP: answers in request order whatever order they complete in, a frame above
 * socket.request.max.bytes refused from its size alone, a frame that is not Kafka's protocol closes the connection.
 * The handler here answers Metadata with futures the test completes, so the order is the test's to choose.
 */
@Timeout(30)
class KafkaConnectionTest {

    private static final int MAX_FRAME = 64 * 1024;
    private static final short METADATA_VERSION = 12;

    private final Map<Integer, CompletableFuture<ApiMessage>> held = new ConcurrentHashMap<>();
    private KafkaListener listener;

    @BeforeEach
    void start() {
        KafkaHandler handler = request -> {
            if (request.apiKey() == ApiKeys.API_VERSIONS) {
                return CompletableFuture.completedFuture(KafkaApis.apiVersions());
            }
            CompletableFuture<ApiMessage> answer = new CompletableFuture<>();
            held.put(request.header().correlationId(), answer);
            return answer;
        };
        listener = KafkaListener.start(new HostPort("127.0.0.1", 0), handler, new ProduceAdmission(10, 1 << 20), MAX_FRAME, 16);
    }

    @AfterEach
    void stop() {
        listener.close();
    }

    @Test
    void answersInRequestOrderWhateverOrderTheyComplete() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            for (int correlationId = 1; correlationId <= 3; correlationId++) {
                writeFrame(out, metadataRequest(correlationId));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 3);
            for (int correlationId = 3; correlationId >= 1; correlationId--) {
                held.get(correlationId).complete(new MetadataResponseData().setClusterId("c" + correlationId));
            }
            for (int expected = 1; expected <= 3; expected++) {
                ByteBuffer frame = readFrame(in);
                ResponseHeader header = ResponseHeader.parse(frame, ApiKeys.METADATA.responseHeaderVersion(METADATA_VERSION));
                assertThat(header.correlationId()).isEqualTo(expected);
                MetadataResponseData body = new MetadataResponseData(new ByteBufferAccessor(frame), METADATA_VERSION);
                assertThat(body.clusterId()).isEqualTo("c" + expected);
            }
        }
    }

    @Test
    void aFrameAboveTheLimitIsRefusedFromItsSizeAlone() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            // Only the size: the listener must close without waiting for (or allocating) the body.
            out.writeInt(MAX_FRAME + 1);
            out.flush();
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void aFrameThatIsNotKafkasProtocolClosesTheConnection() throws IOException {
        long seed = System.nanoTime();
        byte[] garbage = new byte[64];
        new SplittableRandom(seed).nextBytes(garbage);
        // An api key no Kafka has, then noise.
        garbage[0] = 0x7f;
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(garbage.length);
            out.write(garbage);
            out.flush();
            assertThat(socket.getInputStream().read()).as("seed %d", seed).isEqualTo(-1);
        }
        assertThat(held).isEmpty();
    }

    /**
     * A mutation corpus of valid Metadata frames (a byte flipped, the body cut short, or both), against a listener
     * whose handler answers at once: each is answered or its connection closed, none leaves a connection hanging, and
     * the listener still serves a well-formed request afterwards.
     */
    @Test
    void mutatedFramesAreAnsweredOrClosedAndTheListenerLives() throws IOException {
        KafkaHandler answering = request -> CompletableFuture.completedFuture(request.apiKey() == ApiKeys.API_VERSIONS
            ? KafkaApis.apiVersions() : new MetadataResponseData().setClusterId("fuzz"));
        KafkaListener fuzzed = KafkaListener.start(new HostPort("127.0.0.1", 0), answering, new ProduceAdmission(10, 1 << 20),
            MAX_FRAME, 16);
        long seed = 20261203L;
        SplittableRandom random = new SplittableRandom(seed);
        try {
            for (int i = 0; i < 200; i++) {
                ByteBuffer valid = new MetadataRequest.Builder(new MetadataRequestData().setTopics(List.of(
                    new MetadataRequestData.MetadataRequestTopic().setName("orders-" + i),
                    new MetadataRequestData.MetadataRequestTopic().setName("payments")))).build(METADATA_VERSION)
                    .serializeWithHeader(new RequestHeader(ApiKeys.METADATA, METADATA_VERSION, "fuzz", i + 1));
                byte[] bytes = new byte[valid.remaining()];
                valid.get(bytes);
                int kind = random.nextInt(3);
                if (kind != 1) {
                    int at = random.nextInt(bytes.length);
                    bytes[at] ^= (byte) (1 + random.nextInt(255));
                }
                if (kind != 0) {
                    bytes = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length));
                }
                try (Socket socket = new Socket("127.0.0.1", fuzzed.port())) {
                    socket.setSoTimeout(10_000);
                    DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                    out.writeInt(bytes.length);
                    out.write(bytes);
                    out.flush();
                    // an answer's first byte, or -1 for a close; a hang fails with SocketTimeoutException
                    int first;
                    try {
                        first = socket.getInputStream().read();
                    } catch (java.net.SocketException reset) {
                        first = -1;
                    }
                    assertThat(first).as("seed %d, case %d", seed, i).isGreaterThanOrEqualTo(-1);
                }
            }
            try (Socket socket = new Socket("127.0.0.1", fuzzed.port())) {
                DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                ByteBuffer request = ByteBuffer.allocate(8 + 2);
                request.putShort(ApiKeys.API_VERSIONS.id).putShort((short) 0).putInt(7).putShort((short) -1).flip();
                writeFrame(out, request);
                ByteBuffer frame = readFrame(new DataInputStream(socket.getInputStream()));
                assertThat(ResponseHeader.parse(frame, (short) 0).correlationId()).isEqualTo(7);
            }
        } finally {
            fuzzed.close();
        }
    }

    @Test
    void anApiVersionsTooNewIsAnsweredInVersionZeroWithTheList() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            ByteBuffer request = ByteBuffer.allocate(8 + 2);
            request.putShort(ApiKeys.API_VERSIONS.id).putShort((short) 99).putInt(42).putShort((short) -1).flip();
            writeFrame(out, request);
            ByteBuffer frame = readFrame(new DataInputStream(socket.getInputStream()));
            assertThat(ResponseHeader.parse(frame, (short) 0).correlationId()).isEqualTo(42);
            ApiVersionsResponseData body = new ApiVersionsResponseData(new ByteBufferAccessor(frame), (short) 0);
            assertThat(body.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
            assertThat(body.apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion())
                .isEqualTo(SupportedApis.maxVersion(ApiKeys.API_VERSIONS));
        }
    }

    private static ByteBuffer metadataRequest(int correlationId) {
        RequestHeader header = new RequestHeader(ApiKeys.METADATA, METADATA_VERSION, "test", correlationId);
        return new MetadataRequest.Builder(new MetadataRequestData().setTopics(List.of())).build(METADATA_VERSION)
            .serializeWithHeader(header);
    }

    private static void writeFrame(DataOutputStream out, ByteBuffer frame) throws IOException {
        out.writeInt(frame.remaining());
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        out.write(bytes);
        out.flush();
    }

    private static ByteBuffer readFrame(DataInputStream in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return ByteBuffer.wrap(bytes);
    }
}
