package io.raftline.tests.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.raftline.cli.command.dev.DevTls;
import io.raftline.common.tls.DevCertificates;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import io.raftline.protocol.broker.MetadataRequest;
import io.raftline.protocol.controller.ControllerServiceGrpc;
import io.raftline.protocol.controller.DescribeQuorumRequest;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.io.IOException;
import java.math.BigInteger;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One 3-node cluster with TLS and mTLS on every listener and link, set up as {@code raftline dev --tls} does: the CLI
 * (in-process, {@code --command-config} the admin's client.properties) produces and consumes over it; a plaintext
 * client is refused on the broker, controller, quorum and metrics listeners; certificates from another CA, expired
 * ones, and a client claiming a replica id are refused; a node certificate replaced on disk is served without a
 * restart; {@code perf produce} and {@code perf consume} run over TLS with the same file.
 */
@Timeout(600)
class TlsIT {

    private static final Duration SETTLE = Duration.ofSeconds(90);
    private static TestCluster cluster;
    private static Cli cli;
    private static DevTls tls;
    private static Path adminConfig;

    @TempDir
    static Path tmp;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).tls().start();
        cli = new Cli(cluster.bootstrap());
        tls = cluster.tls();
        adminConfig = tls.clientProperties();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void ok(Cli.Result r) {
        assertThat(r.exitCode()).as(r.toString()).isZero();
    }

    /** A client config with a short API timeout, so a refused client fails in seconds. */
    private static Path clientConfig(String name, String body) throws IOException {
        Path file = tmp.resolve(name + ".properties");
        Files.writeString(file, body + "default.api.timeout.ms=8000\nrequest.timeout.ms=4000\n");
        return file;
    }

    private static String sslConfig(Path cert, Path key) {
        return "security.protocol=SSL\nssl.truststore.location=" + tls.ca() + "\n"
            + (cert == null ? "" : "ssl.certificate.location=" + cert + "\nssl.key.location=" + key + "\n");
    }

    private static void assertRefused(Cli.Result r, String contains) {
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.err()).as(r.toString()).startsWith("error: ").contains(contains);
        assertThat(r.err().lines().count()).as(r.toString()).isEqualTo(1);
    }

    @Test
    void theCliProducesAndConsumesOverTls() {
        ok(cli.run("topics", "create", "--topic", "tls-orders", "--partitions", "2", "--replication-factor", "3",
            "--command-config", adminConfig.toString()));
        ok(cli.runWithInput("a\nb\nc\n", "produce", "--topic", "tls-orders", "--command-config", adminConfig.toString()));
        Cli.Result consumed = cli.run("consume", "--topic", "tls-orders", "--from-beginning", "--max-messages", "3",
            "--command-config", adminConfig.toString());
        ok(consumed);
        assertThat(consumed.outLines()).containsExactlyInAnyOrder("a", "b", "c");
        // acks=all needs the followers: replication ran over TLS between the brokers
        TestCluster.await(() -> cli.json("topics", "describe", "--topic", "tls-orders", "--command-config",
                adminConfig.toString()).path("partitions").findValues("isr").stream().allMatch(isr -> isr.size() == 3),
            SETTLE, "every replica of tls-orders in the ISR");
    }

    @Test
    void perfProducesAndConsumesOverTls() {
        ok(cli.run("topics", "create", "--topic", "tls-perf", "--partitions", "1", "--replication-factor", "3",
            "--command-config", adminConfig.toString()));
        Cli.Result produced = cli.run("perf", "produce", "--topic", "tls-perf", "--num-records", "2000", "--record-size", "100",
            "--throughput", "-1", "--acks", "all", "--command-config", adminConfig.toString());
        ok(produced);
        Cli.Result consumed = cli.run("perf", "consume", "--topic", "tls-perf", "--messages", "2000",
            "--command-config", adminConfig.toString());
        ok(consumed);
    }

    /** The console's own admin client reaches the brokers over TLS (as this node's principal): its overview lists a topic. */
    @Test
    void theConsoleReadsTheClusterOverTls() throws Exception {
        ok(cli.run("topics", "create", "--topic", "tls-console", "--partitions", "1", "--replication-factor", "3",
            "--command-config", adminConfig.toString()));
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().sslContext(tls.adminContext(Instant.now()))
            .connectTimeout(Duration.ofSeconds(10)).build();
        java.net.URI overview = URI.create("https://localhost:" + cluster.node(2).metricsPort() + "/ui/api/overview");
        TestCluster.await(() -> {
            try {
                java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(overview)
                    .timeout(Duration.ofSeconds(20)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
                return r.statusCode() == 200 && r.body().contains("\"tls-console\"");
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }, SETTLE, "the console's overview over TLS lists tls-console");
    }

    @Test
    void aPlaintextClientIsRefusedOnEveryListener() throws Exception {
        Path plain = clientConfig("plain", "");
        Cli.Result r = cli.run("topics", "list", "--command-config", plain.toString());
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        TestNode node = cluster.node(1);
        // broker.listener, controller.listener and quorum.listener: a plaintext HTTP/2 call never reaches a service
        // (a plaintext server would answer UNIMPLEMENTED for an unknown method, not UNAVAILABLE)
        for (int port : List.of(node.brokerPort(), node.controllerPort(), node.quorumPort())) {
            ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
            try {
                assertThatThrownBy(() -> BrokerServiceGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS)
                    .metadata(MetadataRequest.getDefaultInstance()))
                    .as("port " + port).isInstanceOf(StatusRuntimeException.class)
                    .satisfies(e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
                        .isIn(Status.Code.UNAVAILABLE, Status.Code.INTERNAL, Status.Code.DEADLINE_EXCEEDED));
            } finally {
                ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
        // metrics.listener: plain HTTP gets no answer; HTTPS without a client certificate fails the handshake
        HttpURLConnection http = (HttpURLConnection) URI.create("http://127.0.0.1:" + node.metricsPort() + "/ready").toURL()
            .openConnection();
        http.setConnectTimeout(2000);
        http.setReadTimeout(5000);
        assertThatThrownBy(http::getResponseCode).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> handshake(node.metricsPort(), trustOnly(), false)).isInstanceOf(IOException.class);
        assertThat(node.isReady()).as("the admin's certificate is let in").isTrue();
    }

    @Test
    void aCertificateFromAnotherCaIsRefused() throws Exception {
        Path otherCa = tmp.resolve("other-ca");
        DevCertificates.createCa(otherCa, Instant.now(), Duration.ofDays(1))
            .issue("app", List.of(), List.of(), otherCa, Instant.now(), Duration.ofDays(1));
        Path config = clientConfig("other-ca", sslConfig(otherCa.resolve("app.pem"), otherCa.resolve("app.key")));
        assertRefused(cli.run("topics", "list", "--command-config", config.toString()), "authentication failed");
    }

    @Test
    void anExpiredCertificateIsRefused() throws Exception {
        Path dir = tmp.resolve("expired");
        DevCertificates.loadCa(tls.ca().getParent()).issue("old", List.of(), List.of(), dir,
            Instant.now().minus(Duration.ofDays(10)), Duration.ofDays(1));
        // the SDK refuses to use it at all ...
        Path config = clientConfig("expired", sslConfig(dir.resolve("old.pem"), dir.resolve("old.key")));
        assertRefused(cli.run("topics", "list", "--command-config", config.toString()), "certificate expired at");
        // ... and a client that presents it anyway is refused by the broker
        ManagedChannel ch = NettyChannelBuilder.forAddress("localhost", cluster.node(1).brokerPort())
            .sslContext(GrpcSslContexts.configure(SslContextBuilder.forClient(), SslProvider.JDK)
                .trustManager(tls.ca().toFile()).keyManager(dir.resolve("old.pem").toFile(), dir.resolve("old.key").toFile())
                .build()).build();
        try {
            assertThatThrownBy(() -> BrokerServiceGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
                .metadata(MetadataRequest.getDefaultInstance())).isInstanceOf(StatusRuntimeException.class)
                .hasMessageContaining("UNAVAILABLE");
        } finally {
            ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static ManagedChannel mtls(int port, Path cert, Path key) throws IOException {
        return NettyChannelBuilder.forAddress("localhost", port)
            .sslContext(GrpcSslContexts.configure(SslContextBuilder.forClient(), SslProvider.JDK)
                .trustManager(tls.ca().toFile()).keyManager(cert.toFile(), key.toFile()).build()).build();
    }

    @Test
    void aClientCertificatePretendingToBeAReplicaIsRefused() throws Exception {
        Path dir = tmp.resolve("app");
        DevCertificates.loadCa(tls.ca().getParent()).issue("app", List.of(), List.of(), dir, Instant.now(), Duration.ofDays(1));
        TestNode node = cluster.node(1);
        ManagedChannel app = mtls(node.brokerPort(), dir.resolve("app.pem"), dir.resolve("app.key"));
        try {
            // a client with a valid certificate may fetch as a consumer ...
            assertThat(fetch(app, -1).hasError()).isFalse();
            // ... but not as replica 2
            assertThatThrownBy(() -> fetch(app, 2)).hasMessageContaining("PERMISSION_DENIED")
                .hasMessageContaining("User:app may not fetch as replica 2");
            // nor call the controller service, which only nodes use
            ManagedChannel controller = mtls(node.controllerPort(), dir.resolve("app.pem"), dir.resolve("app.key"));
            try {
                assertThatThrownBy(() -> ControllerServiceGrpc.newBlockingStub(controller).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .describeQuorum(DescribeQuorumRequest.getDefaultInstance()))
                    .hasMessageContaining("PERMISSION_DENIED: User:app is not a node principal");
            } finally {
                controller.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        } finally {
            app.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        // a node's certificate passes the principal check (the broker then judges the fetch itself)
        ManagedChannel asNode = mtls(node.brokerPort(), tls.cert(DevTls.nodeName(2)), tls.key(DevTls.nodeName(2)));
        try {
            fetch(asNode, 2);
        } finally {
            asNode.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** One fetch of partition 0 of __consumer_offsets-free topic "tls-fetch" on a fetch stream, as replica {@code replicaId}. */
    private static FetchResponse fetch(ManagedChannel ch, int replicaId) throws Exception {
        CompletableFuture<FetchResponse> answer = new CompletableFuture<>();
        StreamObserver<FetchRequest> requests = BrokerServiceGrpc.newStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS)
            .fetch(new StreamObserver<>() {
                @Override
                public void onNext(FetchResponse value) {
                    answer.complete(value);
                }

                @Override
                public void onError(Throwable t) {
                    answer.completeExceptionally(t);
                }

                @Override
                public void onCompleted() {
                    answer.completeExceptionally(new IllegalStateException("stream ended without an answer"));
                }
            });
        requests.onNext(FetchRequest.newBuilder().setCorrelationId(1).setReplicaId(replicaId).setMaxWaitMs(0).setMinBytes(0)
            .setMaxBytes(1 << 20).build());
        try {
            return answer.get(30, TimeUnit.SECONDS);
        } finally {
            requests.onCompleted();
        }
    }

    private static SSLContext trustOnly() throws Exception {
        java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (var in = Files.newInputStream(tls.ca())) {
            store.setCertificateEntry("ca", java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    /** A TLS handshake with 127.0.0.1:port; the serial of the certificate the server presented. */
    private static BigInteger handshake(int port, SSLContext context, boolean h2) throws IOException {
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            SSLParameters params = socket.getSSLParameters();
            if (h2) {
                params.setApplicationProtocols(new String[] {"h2"});
            }
            socket.setSSLParameters(params);
            socket.startHandshake();
            // with client auth required, a refused client learns it on its first read
            socket.getOutputStream().write(new byte[0]);
            socket.getOutputStream().flush();
            if (!h2) {
                socket.getOutputStream().write("GET /health HTTP/1.0\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                if (socket.getInputStream().read() < 0) {
                    throw new IOException("closed without an answer");
                }
            }
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    @Test
    void aNodeCertificateReplacedOnDiskIsServedWithoutARestart() throws Exception {
        TestNode node = cluster.node(3);
        SSLContext admin = tls.adminContext(Instant.now());
        BigInteger before = handshake(node.brokerPort(), admin, true);
        long pid = node.pid();
        DevCertificates.loadCa(tls.ca().getParent()).issue(DevTls.nodeName(3), List.of("localhost"), List.of("127.0.0.1"),
            tls.ca().getParent(), Instant.now(), Duration.ofDays(30));
        BigInteger issued = ((X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
            .generateCertificate(Files.newInputStream(tls.cert(DevTls.nodeName(3))))).getSerialNumber();
        assertThat(issued).isNotEqualTo(before);
        TestCluster.await(() -> {
            try {
                return handshake(node.brokerPort(), admin, true).equals(issued);
            } catch (IOException e) {
                return false;
            }
        }, Duration.ofSeconds(30), "node 3's broker.listener to present the new certificate");
        TestCluster.await(() -> {
            try {
                return handshake(node.metricsPort(), admin, false).equals(issued);
            } catch (IOException e) {
                return false;
            }
        }, Duration.ofSeconds(30), "node 3's metrics.listener to present the new certificate");
        assertThat(node.pid()).isEqualTo(pid);
        assertThat(node.isRunning()).isTrue();
        // and the cluster still works over the new certificate
        ok(cli.run("topics", "list", "--command-config", adminConfig.toString()));
    }
}
