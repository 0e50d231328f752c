package io.raftline.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.rpc.ProduceAdmission;
import io.raftline.common.config.HostPort;
import io.raftline.common.sasl.ScramClient;
import io.raftline.common.sasl.ScramCredential;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.grpc.ServerSasl;
import io.raftline.grpc.TransportSecurity;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Kafka listener's SASL over real TCP (the TLS under it is TlsIT's and SaslIT's): before authentication only
 * ApiVersions and the SASL requests are served, anything else closes the connection without reaching the handler; a
 * SCRAM exchange of SaslHandshake and SaslAuthenticate makes later requests the user's; a failed one is answered and
 * the connection closed; a session past connections.max.reauth.ms, or of a removed user, closes the connection at the
 * next request. The clock is the test's.
 */
@Timeout(30)
class KafkaSaslTest {

    private static final byte[] SALT = "kafka-sasl-salt!".getBytes(StandardCharsets.UTF_8);
    private final Map<String, ScramCredential> users = new ConcurrentHashMap<>();
    private final List<String> served = new CopyOnWriteArrayList<>();
    private final AtomicLong clock = new AtomicLong(1_000);
    private KafkaListener listener;
    /** max.connections.per.principal=1 */
    private final io.raftline.grpc.PrincipalConnections perPrincipal = new io.raftline.grpc.PrincipalConnections(1, p -> false);

    @BeforeEach
    void start() {
        users.put("alice", ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_512, "pw", SALT, 4096));
        ServerSasl sasl = ServerSasl.of((user, mechanism) -> Optional.ofNullable(users.get(user))
            .filter(c -> c.mechanism() == mechanism), clock::get, 10_000);
        KafkaHandler handler = request -> {
            served.add(request.apiKey() + " as " + request.principal());
            return CompletableFuture.completedFuture(new MetadataResponseData().setClusterId("c"));
        };
        listener = KafkaListener.start(new HostPort("127.0.0.1", 0), handler, new ProduceAdmission(10, 1 << 20), 1 << 16, 16,
            TransportSecurity.plaintext().withPrincipalConnections(perPrincipal), sasl, io.raftline.broker.rpc.ConnectionLimits.NONE);
    }

    @AfterEach
    void stop() {
        listener.close();
    }

    private static void write(DataOutputStream out, ByteBuffer frame) throws IOException {
        out.writeInt(frame.remaining());
        out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
        out.flush();
    }

    private static ByteBuffer read(DataInputStream in, ApiKeys key, short version) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        ByteBuffer frame = ByteBuffer.wrap(b);
        ResponseHeader.parse(frame, key.responseHeaderVersion(version));
        return frame;
    }

    private static void metadata(DataOutputStream out, int id) throws IOException {
        write(out, new MetadataRequest.Builder(new MetadataRequestData().setTopics(List.of())).build((short) 12)
            .serializeWithHeader(new RequestHeader(ApiKeys.METADATA, (short) 12, "t", id)));
    }

    private static SaslHandshakeResponseData handshake(DataOutputStream out, DataInputStream in, String mechanism)
        throws IOException {
        write(out, new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism)).build((short) 1)
            .serializeWithHeader(new RequestHeader(ApiKeys.SASL_HANDSHAKE, (short) 1, "t", 1)));
        return new SaslHandshakeResponseData(new ByteBufferAccessor(read(in, ApiKeys.SASL_HANDSHAKE, (short) 1)), (short) 1);
    }

    private static SaslAuthenticateResponseData authenticate(DataOutputStream out, DataInputStream in, byte[] bytes)
        throws IOException {
        write(out, new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(bytes)).build((short) 2)
            .serializeWithHeader(new RequestHeader(ApiKeys.SASL_AUTHENTICATE, (short) 2, "t", 2)));
        return new SaslAuthenticateResponseData(new ByteBufferAccessor(read(in, ApiKeys.SASL_AUTHENTICATE, (short) 2)),
            (short) 2);
    }

    /** A full SCRAM-SHA-512 exchange; the last answer. */
    private static SaslAuthenticateResponseData login(DataOutputStream out, DataInputStream in, String user, String password)
        throws Exception {
        assertThat(handshake(out, in, "SCRAM-SHA-512").errorCode()).isEqualTo(Errors.NONE.code());
        ScramClient scram = new ScramClient(ScramMechanism.SCRAM_SHA_512, user, password);
        SaslAuthenticateResponseData first = authenticate(out, in, scram.firstMessage());
        assertThat(first.errorCode()).isEqualTo(Errors.NONE.code());
        SaslAuthenticateResponseData last = authenticate(out, in, scram.finalMessage(first.authBytes()));
        if (last.errorCode() == Errors.NONE.code()) {
            scram.verify(last.authBytes());
        }
        return last;
    }

    private static boolean closed(Socket socket) throws IOException {
        return socket.getInputStream().read() == -1;
    }

    @Test
    void aRequestBeforeAuthenticationClosesTheConnectionWithoutReachingTheHandler() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            metadata(new DataOutputStream(socket.getOutputStream()), 7);
            assertThat(closed(socket)).isTrue();
        }
        assertThat(served).isEmpty();
    }

    @Test
    void aScramExchangeMakesLaterRequestsTheUsersWithTheSessionLifetime() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            SaslAuthenticateResponseData last = login(out, in, "alice", "pw");
            assertThat(last.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(last.sessionLifetimeMs()).isEqualTo(10_000);
            metadata(out, 3);
            read(in, ApiKeys.METADATA, (short) 12);
            assertThat(served).containsExactly("METADATA as User:alice");
            // KIP-368: re-authentication on the same connection before the end, then past the first session's end
            clock.addAndGet(9_000);
            assertThat(login(out, in, "alice", "pw").errorCode()).isEqualTo(Errors.NONE.code());
            clock.addAndGet(5_000);
            metadata(out, 4);
            read(in, ApiKeys.METADATA, (short) 12);
            assertThat(served).hasSize(2);
            // past the second session's end: the next request closes the connection
            clock.addAndGet(10_000);
            metadata(out, 5);
            assertThat(closed(socket)).isTrue();
        }
        assertThat(served).hasSize(2);
    }

    @Test
    void aWrongPasswordIsAnsweredThenTheConnectionClosed() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            SaslAuthenticateResponseData last = login(out, in, "alice", "nope");
            assertThat(last.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            assertThat(last.errorMessage()).isEqualTo("authentication failed: invalid credentials for user 'alice' with "
                + "SCRAM-SHA-512");
            assertThat(closed(socket)).isTrue();
        }
        assertThat(served).isEmpty();
    }

    @Test
    void anUnknownMechanismAndAnAuthenticateWithoutHandshakeAreRefused() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            SaslHandshakeResponseData plain = handshake(out, in, "PLAIN");
            assertThat(plain.errorCode()).isEqualTo(Errors.UNSUPPORTED_SASL_MECHANISM.code());
            assertThat(plain.mechanisms()).containsExactly("SCRAM-SHA-512", "SCRAM-SHA-256");
            SaslAuthenticateResponseData early = authenticate(out, in, new byte[] {1});
            assertThat(early.errorCode()).isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
            assertThat(closed(socket)).isTrue();
        }
    }

    /**
     * max.connections.per.principal=1: a second connection of the same user is closed at its first request after
     * authenticating, without reaching the handler; once the first closes, a new one is served.
     */
    @Test
    void aUsersConnectionPastItsLimitIsClosedAtItsFirstRequest() throws Exception {
        try (Socket first = new Socket("127.0.0.1", listener.port())) {
            DataOutputStream out = new DataOutputStream(first.getOutputStream());
            DataInputStream in = new DataInputStream(first.getInputStream());
            assertThat(login(out, in, "alice", "pw").errorCode()).isEqualTo(Errors.NONE.code());
            metadata(out, 3);
            read(in, ApiKeys.METADATA, (short) 12);
            try (Socket second = new Socket("127.0.0.1", listener.port())) {
                DataOutputStream out2 = new DataOutputStream(second.getOutputStream());
                assertThat(login(out2, new DataInputStream(second.getInputStream()), "alice", "pw").errorCode())
                    .isEqualTo(Errors.NONE.code());
                metadata(out2, 3);
                assertThat(closed(second)).isTrue();
            }
            metadata(out, 4);
            read(in, ApiKeys.METADATA, (short) 12);
        }
        assertThat(served).containsExactly("METADATA as User:alice", "METADATA as User:alice");
        assertThat(perPrincipal.refused()).isEqualTo(1);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> perPrincipal.open("User:alice") == 0);
        try (Socket third = new Socket("127.0.0.1", listener.port())) {
            DataOutputStream out = new DataOutputStream(third.getOutputStream());
            DataInputStream in = new DataInputStream(third.getInputStream());
            assertThat(login(out, in, "alice", "pw").errorCode()).isEqualTo(Errors.NONE.code());
            metadata(out, 5);
            read(in, ApiKeys.METADATA, (short) 12);
        }
        assertThat(served).hasSize(3);
    }

    @Test
    void removingTheUserClosesItsConnectionAtTheNextRequest() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            assertThat(login(out, in, "alice", "pw").errorCode()).isEqualTo(Errors.NONE.code());
            users.remove("alice");
            metadata(out, 3);
            assertThat(closed(socket)).isTrue();
        }
        assertThat(served).isEmpty();
    }
}
