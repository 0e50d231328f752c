package io.raftline.grpc;

import static io.raftline.grpc.WhoMethods.WHO_AM_I;
import static io.raftline.grpc.WhoMethods.WHO_STREAM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.raftline.common.Time;
import io.raftline.common.sasl.ScramClient;
import io.raftline.common.sasl.ScramCredential;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.common.tls.DevCertificates;
import io.raftline.common.tls.PrincipalMapper;
import io.raftline.common.tls.ReloadingTls;
import io.raftline.common.tls.SecurityConfig.ClientAuth;
import io.raftline.common.tls.TlsFiles;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.SaslAuthenticateRequest;
import io.raftline.protocol.broker.SaslAuthenticateResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SCRAM over real gRPC with TLS on 127.0.0.1: a SASL_SSL listener (client certificates requested, as nodes present
 * theirs) serves a call as the SCRAM user of its connection, refuses a connection without a session or certificate,
 * ends sessions at connections.max.reauth.ms and when the user goes, streams included; the client interceptor
 * authenticates first, re-authenticates before the lifetime ends, and turns an ended session into a retriable failure.
 * One clock (an AtomicLong) drives both sides.
 */
class SaslTransportTest {

    private static final byte[] SALT = "salt-of-the-test".getBytes(StandardCharsets.UTF_8);

    @TempDir
    static Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final Map<String, ScramCredential> users = new ConcurrentHashMap<>();
    private final AtomicInteger saslSteps = new AtomicInteger();
    private final BlockingQueue<String> streamEnds = new ArrayBlockingQueue<>(10);
    private long maxReauthMs;
    private Server server;
    private ManagedChannel channel;

    private final Time time = new Time() {
        @Override
        public long milliseconds() {
            return clock.get();
        }

        @Override
        public long nanoseconds() {
            return clock.get() * 1_000_000L;
        }

        @Override
        public void sleep(long ms) {
            throw new UnsupportedOperationException();
        }
    };

    @BeforeAll
    static void makeCertificates() {
        Instant now = Instant.now();
        DevCertificates ca = DevCertificates.createCa(dir.resolve("ca"), now.minus(Duration.ofDays(1)), Duration.ofDays(30));
        ca.issue("node1", List.of("localhost"), List.of("127.0.0.1"), dir, now.minus(Duration.ofDays(1)), Duration.ofDays(30));
    }

    @BeforeEach
    void alice() {
        users.put("alice", ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_512, "alice-pw", SALT, 4096));
    }

    private static ReloadingTls tls(String name) {
        TlsFiles files = name == null ? new TlsFiles(null, null, dir.resolve("ca/ca.pem"))
            : new TlsFiles(dir.resolve(name + ".pem"), dir.resolve(name + ".key"), dir.resolve("ca/ca.pem"));
        return ReloadingTls.open(files, System::currentTimeMillis, ReloadingTls.DEFAULT_CHECK_INTERVAL_MS);
    }

    private int start() throws IOException {
        ServerSasl sasl = ServerSasl.of((user, mechanism) -> Optional.ofNullable(users.get(user))
            .filter(c -> c.mechanism() == mechanism), clock::get, maxReauthMs);
        TransportSecurity security = TransportSecurity.tls(tls("node1"), ClientAuth.REQUESTED, PrincipalMapper.defaults())
            .withServerSasl(sasl);
        ServerServiceDefinition service = ServerServiceDefinition.builder("test.Who")
            .addMethod(WHO_AM_I, ServerCalls.asyncUnaryCall((req, out) -> {
                out.onNext(TransportSecurity.principal());
                out.onCompleted();
            }))
            .addMethod(WHO_STREAM, ServerCalls.asyncBidiStreamingCall(out -> new StreamObserver<String>() {
                @Override
                public void onNext(String value) {
                    out.onNext(TransportSecurity.principal());
                }

                @Override
                public void onError(Throwable t) {
                    streamEnds.add("error " + Status.fromThrowable(t).getCode());
                }

                @Override
                public void onCompleted() {
                    streamEnds.add("completed");
                    out.onCompleted();
                }
            })).build();
        ServerServiceDefinition saslService = ServerServiceDefinition.builder(BrokerServiceGrpc.SERVICE_NAME)
            .addMethod(BrokerServiceGrpc.getSaslAuthenticateMethod(), ServerCalls.asyncUnaryCall((req, out) -> {
                saslSteps.incrementAndGet();
                out.onNext(TransportSecurity.saslStep(req));
                out.onCompleted();
            })).build();
        server = security.secure(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
            .addService(security.intercept(service, p -> false, false))
            .addService(security.intercept(saslService, p -> false, false))
            .build().start();
        return server.getPort();
    }

    private ManagedChannel connect(String cert, String user, String password) throws IOException {
        TransportSecurity client = TransportSecurity.tls(tls(cert), ClientAuth.NONE, PrincipalMapper.defaults());
        if (user != null) {
            client = client.withClientScram(new TransportSecurity.ClientScram(ScramMechanism.SCRAM_SHA_512, user, password, time));
        }
        channel = client.secure(NettyChannelBuilder.forAddress("localhost", start())).build();
        return channel;
    }

    private String whoAmI() {
        return ClientCalls.blockingUnaryCall(channel, WHO_AM_I, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "");
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCallIsMadeAsTheScramUserOfItsConnection() throws IOException {
        connect(null, "alice", "alice-pw");
        assertThat(whoAmI()).isEqualTo("User:alice");
        assertThat(whoAmI()).isEqualTo("User:alice");
        assertThat(saslSteps.get()).as("one exchange: two steps").isEqualTo(2);
    }

    @Test
    void aWrongPasswordFailsTheCallWithOneClearError() throws Exception {
        connect(null, "alice", "guess");
        assertThatThrownBy(this::whoAmI).isInstanceOf(StatusRuntimeException.class)
            .hasMessage("UNAUTHENTICATED: authentication failed: invalid credentials for user 'alice' with SCRAM-SHA-512");
        stop();
        connect(null, "nobody", "x");
        assertThatThrownBy(this::whoAmI).hasMessageContaining("invalid credentials for user 'nobody'");
    }

    @Test
    void withoutSessionOrCertificateACallIsRefused() throws IOException {
        connect(null, null, null);
        assertThatThrownBy(this::whoAmI).isInstanceOf(StatusRuntimeException.class)
            .hasMessageContaining("UNAUTHENTICATED: SASL session required");
    }

    @Test
    void aClientCertificateStillIdentifiesANode() throws IOException {
        connect("node1", null, null);
        assertThat(whoAmI()).isEqualTo("User:node1");
    }

    @Test
    void removingTheUserEndsItsSessionAtTheNextCall() throws IOException {
        connect(null, "alice", "alice-pw");
        assertThat(whoAmI()).isEqualTo("User:alice");
        users.remove("alice");
        assertThatThrownBy(this::whoAmI).isInstanceOf(StatusRuntimeException.class)
            .hasMessageContaining("UNAVAILABLE: SASL session ended").hasMessageContaining("re-authenticating");
        assertThatThrownBy(this::whoAmI).hasMessageContaining("UNAUTHENTICATED: authentication failed: invalid credentials");
    }

    @Test
    void theClientReauthenticatesBeforeTheLifetimeEnds() throws IOException {
        maxReauthMs = 1_000;
        connect(null, "alice", "alice-pw");
        assertThat(whoAmI()).isEqualTo("User:alice");
        clock.addAndGet(900);                 // past 85 %: this call starts a re-authentication beside it
        assertThat(whoAmI()).isEqualTo("User:alice");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> saslSteps.get() == 4);
        clock.addAndGet(200);                 // past the first session's end (1,000), before 85 % of the second (1,750)
        assertThat(whoAmI()).isEqualTo("User:alice");
        assertThat(saslSteps.get()).isEqualTo(4);
    }

    @Test
    void anExpiredSessionFailsRetriablyAndTheNextCallAuthenticatesAgain() throws IOException {
        maxReauthMs = 1_000;
        connect(null, "alice", "alice-pw");
        assertThat(whoAmI()).isEqualTo("User:alice");
        // the client's clock stands still (it thinks its session is young); the server's moves past the end
        clock.addAndGet(5_000);
        ManagedChannel raw = channel;
        assertThat(raw).isNotNull();
        // 85 % of 1 s has passed for the client too, so it re-authenticates in the background: wait for it
        whoAmIOrFailure();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> saslSteps.get() >= 4);
        assertThat(whoAmI()).isEqualTo("User:alice");
    }

    private String whoAmIOrFailure() {
        try {
            return whoAmI();
        } catch (StatusRuntimeException e) {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            return e.getMessage();
        }
    }

    @Test
    void aStreamEndsWhenItsSessionDoesAndTheServiceSeesItCancelled() throws Exception {
        connect(null, "alice", "alice-pw");
        BlockingQueue<String> answers = new ArrayBlockingQueue<>(10);
        CountDownLatch closed = new CountDownLatch(1);
        AtomicLong code = new AtomicLong(-1);
        StreamObserver<String> requests = io.grpc.stub.ClientCalls.asyncBidiStreamingCall(
            channel.newCall(WHO_STREAM, CallOptions.DEFAULT), new StreamObserver<String>() {
                @Override
                public void onNext(String value) {
                    answers.add(value);
                }

                @Override
                public void onError(Throwable t) {
                    code.set(Status.fromThrowable(t).getCode().value());
                    closed.countDown();
                }

                @Override
                public void onCompleted() {
                    closed.countDown();
                }
            });
        requests.onNext("1");
        assertThat(answers.poll(10, TimeUnit.SECONDS)).isEqualTo("User:alice");
        users.remove("alice");
        requests.onNext("2");
        assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(code.get()).isEqualTo(Status.Code.UNAVAILABLE.value());
        assertThat(streamEnds.poll(10, TimeUnit.SECONDS)).isEqualTo("error CANCELLED");
        assertThat(answers).isEmpty();
    }

    private SaslAuthenticateResponse step(ManagedChannel c, String mechanism, byte[] bytes) {
        return ClientCalls.blockingUnaryCall(c, BrokerServiceGrpc.getSaslAuthenticateMethod(), CallOptions.DEFAULT
            .withDeadlineAfter(10, TimeUnit.SECONDS), SaslAuthenticateRequest.newBuilder().setMechanism(mechanism)
            .setAuthBytes(ByteString.copyFrom(bytes)).build());
    }

    private SaslAuthenticateResponse login(ManagedChannel c, String user, String password) throws Exception {
        ScramClient scram = new ScramClient(ScramMechanism.SCRAM_SHA_512, user, password);
        SaslAuthenticateResponse first = step(c, "SCRAM-SHA-512", scram.firstMessage());
        if (first.getError().getCode() != ErrorCode.NONE) {
            return first;
        }
        return step(c, "SCRAM-SHA-512", scram.finalMessage(first.getAuthBytes().toByteArray()));
    }

    @Test
    void reauthenticationMustKeepTheUserAndAnUnknownMechanismIsRefused() throws Exception {
        users.put("bob", ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_512, "bob-pw", SALT, 4096));
        connect(null, null, null);
        assertThat(step(channel, "PLAIN", new byte[0]).getError().getCode()).isEqualTo(ErrorCode.UNSUPPORTED_SASL_MECHANISM);
        assertThat(login(channel, "alice", "alice-pw").getError().getCode()).isEqualTo(ErrorCode.NONE);
        assertThat(whoAmI()).isEqualTo("User:alice");
        SaslAuthenticateResponse asBob = login(channel, "bob", "bob-pw");
        assertThat(asBob.getError().getCode()).isEqualTo(ErrorCode.SASL_AUTHENTICATION_FAILED);
        assertThat(asBob.getError().getMessage()).contains("re-authentication as 'bob'");
        // a failed re-authentication ends the session
        assertThatThrownBy(this::whoAmI).hasMessageContaining("SASL session ended");
    }
}
