package io.raftline.grpc;

import static io.raftline.grpc.WhoMethods.WHO_AM_I;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.raftline.common.tls.DevCertificates;
import io.raftline.common.tls.PrincipalMapper;
import io.raftline.common.tls.ReloadingTls;
import io.raftline.common.tls.SecurityConfig.ClientAuth;
import io.raftline.common.tls.TlsFiles;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real gRPC over TCP on 127.0.0.1 with TLS from PEM files: who may connect, which principal a call sees, and which
 * callers a node-only service refuses. The one method answers the caller's principal.
 */
class TransportSecurityTest {


    @TempDir
    static Path dir;
    private static Path otherCaDir;

    private Server server;
    private ManagedChannel channel;

    @BeforeAll
    static void makeCertificates() {
        Instant now = Instant.now();
        DevCertificates ca = DevCertificates.createCa(dir.resolve("ca"), now.minus(Duration.ofDays(1)), Duration.ofDays(30));
        ca.issue("node1", List.of("localhost"), List.of("127.0.0.1"), dir, now.minus(Duration.ofDays(1)), Duration.ofDays(30));
        ca.issue("node2", List.of("localhost"), List.of("127.0.0.1"), dir, now.minus(Duration.ofDays(1)), Duration.ofDays(30));
        ca.issue("wrong-host", List.of("elsewhere.example"), List.of(), dir, now.minus(Duration.ofDays(1)), Duration.ofDays(30));
        ca.issue("app", List.of(), List.of(), dir, now.minus(Duration.ofDays(1)), Duration.ofDays(30));
        ca.issue("expired", List.of(), List.of(), dir, now.minus(Duration.ofDays(10)), Duration.ofDays(2));
        otherCaDir = dir.resolve("other");
        DevCertificates.createCa(otherCaDir, now.minus(Duration.ofDays(1)), Duration.ofDays(30))
            .issue("app", List.of(), List.of(), otherCaDir, now.minus(Duration.ofDays(1)), Duration.ofDays(30));
    }

    private static ReloadingTls tls(String name) {
        TlsFiles files = name == null ? new TlsFiles(null, null, dir.resolve("ca/ca.pem"))
            : new TlsFiles(dir.resolve(name + ".pem"), dir.resolve(name + ".key"), dir.resolve("ca/ca.pem"));
        return ReloadingTls.open(files, System::currentTimeMillis, ReloadingTls.DEFAULT_CHECK_INTERVAL_MS);
    }

    private int start(String serverCert, ClientAuth auth, boolean nodesOnly) throws IOException {
        return start(TransportSecurity.tls(tls(serverCert), auth, PrincipalMapper.defaults()), nodesOnly);
    }

    private int start(TransportSecurity security, boolean nodesOnly) throws IOException {
        ServerServiceDefinition service = ServerServiceDefinition.builder("test.Who")
            .addMethod(WHO_AM_I, ServerCalls.asyncUnaryCall((req, out) -> {
                out.onNext(TransportSecurity.principal());
                out.onCompleted();
            })).build();
        server = security.secure(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
            .addService(security.intercept(service,
                TransportSecurity.nodePrincipals(Set.of("User:node2"), security.ownPrincipal()), nodesOnly))
            .build().start();
        return server.getPort();
    }

    private String call(String host, int port, TransportSecurity client) {
        channel = client.secure(NettyChannelBuilder.forAddress(host, port)).build();
        return ClientCalls.blockingUnaryCall(channel, WHO_AM_I, io.grpc.CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "");
    }

    private static TransportSecurity client(String cert) {
        return TransportSecurity.tls(tls(cert), ClientAuth.NONE, PrincipalMapper.defaults());
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

    /** On the platform the project builds and ships for (linux-x86_64), TLS runs on BoringSSL, not the JDK's engine. */
    @Test
    void boringSslServesTlsOnLinuxX8664() {
        if (System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("linux")
            && System.getProperty("os.arch").equals("amd64")) {
            assertThat(io.netty.handler.ssl.OpenSsl.isAvailable()).as(String.valueOf(io.netty.handler.ssl.OpenSsl.unavailabilityCause()))
                .isTrue();
            assertThat(TransportSecurity.PROVIDER).isEqualTo(io.netty.handler.ssl.SslProvider.OPENSSL);
        } else {
            assertThat(TransportSecurity.PROVIDER).isIn(io.netty.handler.ssl.SslProvider.OPENSSL, io.netty.handler.ssl.SslProvider.JDK);
        }
    }

    /**
     * gRPC builds its SslHandler on {@code newEngine}: a client given 64 KiB of TLS records in one read hands the
     * plaintext on in one piece, not one piece per 16 KiB record (JDK compatibility mode, which BoringSSL's engines
     * from {@code newEngine} are in by default).
     */
    @Test
    void grpcEnginesDecryptAWholeReadAtOnce() {
        assumeBoringSsl();
        TransportSecurity serverSide = TransportSecurity.tls(tls("node1"), ClientAuth.REQUIRED, PrincipalMapper.defaults());
        TransportSecurity clientSide = TransportSecurity.tls(tls("app"), ClientAuth.NONE, PrincipalMapper.defaults());
        List<Integer> reads = new java.util.ArrayList<>();
        SslHandler serverTls = new SslHandler(serverSide.serverContext().newEngine(ByteBufAllocator.DEFAULT), false);
        SslHandler clientTls = new SslHandler(clientSide.clientContext().newEngine(ByteBufAllocator.DEFAULT, "localhost", 443), false);
        EmbeddedChannel server = new EmbeddedChannel(serverTls);
        EmbeddedChannel client = new EmbeddedChannel(clientTls, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                reads.add(((ByteBuf) msg).readableBytes());
                ((ByteBuf) msg).release();
            }
        });
        for (int round = 0; round < 20 && !(serverTls.handshakeFuture().isDone() && clientTls.handshakeFuture().isDone()); round++) {
            pass(client, server);
            pass(server, client);
        }
        assertThat(clientTls.handshakeFuture().isSuccess()).as("handshake").isTrue();
        pass(server, client);
        reads.clear();

        server.writeAndFlush(Unpooled.wrappedBuffer(new byte[64 * 1024]));
        pass(server, client);

        assertThat(reads.stream().mapToInt(Integer::intValue).sum()).isEqualTo(64 * 1024);
        assertThat(reads).as("plaintext pieces handed on").hasSize(1);
        server.finishAndReleaseAll();
        client.finishAndReleaseAll();
    }

    /** Everything {@code from} wrote, as one read of {@code to}. */
    private static void pass(EmbeddedChannel from, EmbeddedChannel to) {
        CompositeByteBuf all = Unpooled.compositeBuffer();
        for (ByteBuf b; (b = from.readOutbound()) != null; ) {
            all.addComponent(true, b);
        }
        if (all.isReadable()) {
            to.writeInbound(all);
        } else {
            all.release();
        }
    }

    private static void assumeBoringSsl() {
        org.junit.jupiter.api.Assumptions.assumeTrue(TransportSecurity.PROVIDER == io.netty.handler.ssl.SslProvider.OPENSSL,
            "BoringSSL is not available on this platform: " + io.netty.handler.ssl.OpenSsl.unavailabilityCause());
    }

    /**
     * max.connections.per.principal over real connections: a principal's connection past the limit has its calls
     * refused (RESOURCE_EXHAUSTED, which the SDK retries) whatever address it comes from; the node principal is not
     * counted; a closed connection's place comes back.
     */
    @Test
    void aPrincipalPastItsConnectionLimitIsRefusedUntilOneOfItsConnectionsCloses() throws Exception {
        PrincipalConnections limits = new PrincipalConnections(1, Set.of("User:node2")::contains);
        int port = start(TransportSecurity.tls(tls("node1"), ClientAuth.REQUIRED, PrincipalMapper.defaults())
            .withPrincipalConnections(limits), false);
        ManagedChannel first = client("app").secure(NettyChannelBuilder.forAddress("localhost", port)).build();
        ManagedChannel second = client("app").secure(NettyChannelBuilder.forAddress("localhost", port)).build();
        ManagedChannel node = client("node2").secure(NettyChannelBuilder.forAddress("localhost", port)).build();
        ManagedChannel node2 = client("node2").secure(NettyChannelBuilder.forAddress("localhost", port)).build();
        try {
            assertThat(who(first)).isEqualTo("User:app");
            assertThat(who(first)).as("its next call on the same connection").isEqualTo("User:app");
            assertThatThrownBy(() -> who(second)).isInstanceOf(StatusRuntimeException.class)
                .satisfies(e -> {
                    Status status = ((StatusRuntimeException) e).getStatus();
                    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                    assertThat(status.getDescription()).isEqualTo("too many connections as User:app on this broker: "
                        + "it holds 1 (max.connections.per.principal=1)");
                });
            assertThat(who(node)).isEqualTo("User:node2");
            assertThat(who(node2)).as("a node's connections are not counted").isEqualTo("User:node2");
            first.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> limits.open("User:app") == 0);
            assertThat(who(second)).as("the place of the closed connection").isEqualTo("User:app");
        } finally {
            for (ManagedChannel c : List.of(first, second, node, node2)) {
                c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    private static String who(ManagedChannel on) {
        return ClientCalls.blockingUnaryCall(on, WHO_AM_I, io.grpc.CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "");
    }

    @Test
    void anMtlsCallSeesTheClientCertificatesPrincipal() throws IOException {
        int port = start("node1", ClientAuth.REQUIRED, false);
        assertThat(call("localhost", port, client("app"))).isEqualTo("User:app");
    }

    @Test
    void withoutRequiredClientAuthACallWithoutCertificateIsAnonymous() throws IOException {
        int port = start("node1", ClientAuth.REQUESTED, false);
        assertThat(call("127.0.0.1", port, client(null))).isEqualTo(TransportSecurity.ANONYMOUS);
    }

    @Test
    void aPlaintextClientIsRefused() throws IOException {
        int port = start("node1", ClientAuth.REQUIRED, false);
        assertThatThrownBy(() -> call("localhost", port, TransportSecurity.plaintext()))
            .isInstanceOf(StatusRuntimeException.class)
            .satisfies(e -> assertThat(((StatusRuntimeException) e).getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    }

    @Test
    void aClientWithoutCertificateIsRefusedWhenMtlsIsRequired() throws IOException {
        int port = start("node1", ClientAuth.REQUIRED, false);
        assertThatThrownBy(() -> call("localhost", port, client(null))).isInstanceOf(StatusRuntimeException.class);
    }

    /** A client that skips this side's own checks (Netty straight from the files), as a hostile client would. */
    private String rawCall(int port, Path cert, Path key) throws IOException {
        channel = NettyChannelBuilder.forAddress("localhost", port)
            .sslContext(GrpcSslContexts.configure(SslContextBuilder.forClient(), SslProvider.JDK)
                .trustManager(dir.resolve("ca/ca.pem").toFile()).keyManager(cert.toFile(), key.toFile()).build())
            .build();
        return ClientCalls.blockingUnaryCall(channel, WHO_AM_I, io.grpc.CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "");
    }

    @Test
    void aCertificateFromAnotherCaIsRefused() throws IOException {
        int port = start("node1", ClientAuth.REQUIRED, false);
        assertThatThrownBy(() -> rawCall(port, otherCaDir.resolve("app.pem"), otherCaDir.resolve("app.key")))
            .isInstanceOf(StatusRuntimeException.class);
        // the same client with this CA's certificate gets through: the refusal is the CA's
        assertThat(rawCall(port, dir.resolve("app.pem"), dir.resolve("app.key"))).isEqualTo("User:app");
    }

    @Test
    void anExpiredClientCertificateIsRefused() throws IOException {
        int port = start("node1", ClientAuth.REQUIRED, false);
        assertThatThrownBy(() -> rawCall(port, dir.resolve("expired.pem"), dir.resolve("expired.key")))
            .isInstanceOf(StatusRuntimeException.class);
    }

    @Test
    void theServersHostNameIsVerified() throws IOException {
        int port = start("wrong-host", ClientAuth.NONE, false);
        assertThatThrownBy(() -> call("localhost", port, client(null))).isInstanceOf(StatusRuntimeException.class)
            .hasMessageContaining("UNAVAILABLE");
    }

    @Test
    void anEmptyEndpointIdentificationAlgorithmSkipsTheHostNameButNotTheChain() throws IOException, InterruptedException {
        int port = start("wrong-host", ClientAuth.NONE, false);
        TransportSecurity lax = TransportSecurity.tls(tls(null), ClientAuth.NONE, PrincipalMapper.defaults(), false);
        assertThat(call("localhost", port, lax)).isEqualTo(TransportSecurity.ANONYMOUS);
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        // the chain is still checked: a server from another CA is refused
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        TransportSecurity otherServer = TransportSecurity.tls(ReloadingTls.open(new TlsFiles(otherCaDir.resolve("app.pem"),
            otherCaDir.resolve("app.key"), otherCaDir.resolve("ca.pem")), System::currentTimeMillis,
            ReloadingTls.DEFAULT_CHECK_INTERVAL_MS), ClientAuth.NONE, PrincipalMapper.defaults());
        server = otherServer.secure(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)))
            .addService(ServerServiceDefinition.builder("test.Who").addMethod(WHO_AM_I,
                ServerCalls.asyncUnaryCall((req, out) -> {
                    out.onNext("reached");
                    out.onCompleted();
                })).build()).build().start();
        int otherPort = server.getPort();
        assertThatThrownBy(() -> call("localhost", otherPort, lax)).isInstanceOf(StatusRuntimeException.class)
            .hasMessageContaining("UNAVAILABLE");
    }

    @Test
    void aNodeOnlyServiceRefusesOtherPrincipalsAndServesNodes() throws IOException, InterruptedException {
        int port = start("node1", ClientAuth.REQUIRED, true);
        assertThatThrownBy(() -> call("localhost", port, client("app")))
            .isInstanceOf(StatusRuntimeException.class)
            .hasMessageContaining("PERMISSION_DENIED: User:app is not a node principal");
        stop();
        int again = start("node1", ClientAuth.REQUIRED, true);
        assertThat(call("localhost", again, client("node2"))).isEqualTo("User:node2");
    }
}
