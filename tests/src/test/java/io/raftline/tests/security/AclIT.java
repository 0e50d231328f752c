package io.raftline.tests.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.ManagedChannel;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.raftline.cli.command.dev.DevTls;
import io.raftline.common.tls.DevCertificates;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.MetadataRequest;
import io.raftline.protocol.broker.MetadataResponse;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACLs on one 3-node cluster set up as {@code raftline dev --tls} does (mTLS everywhere, {@code authorizer.enabled=true},
 * {@code allow.everyone.if.no.acl.found=false}): a client with a valid certificate but no ACL is refused produce,
 * consume, group membership and every admin operation with one clear error, and nothing changes; an ACL added through
 * one broker applies on every broker within a second; a deny wins over an allow; a removed ACL closes the door again;
 * the Kafka listener (TLS with mTLS too) checks the same ACLs for its clients' certificate principals; an SDK consumer's
 * fetch session is refused at its next fetch once its READ ACL is removed.
 * The CLI runs in-process with the admin's or the app's client config.
 */
@Timeout(600)
class AclIT {

    private static final Duration SETTLE = Duration.ofSeconds(90);
    private static TestCluster cluster;
    private static Cli cli;
    private static DevTls tls;
    private static String admin;
    private static String app;
    private static Path appDir;

    @TempDir
    static Path tmp;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.builder().combined(3).tls().start();
        cli = new Cli(cluster.bootstrap());
        tls = cluster.tls();
        admin = tls.clientProperties().toString();
        appDir = tmp.resolve("app");
        DevCertificates.loadCa(tls.ca().getParent()).issue("app", List.of(), List.of(), appDir, Instant.now(),
            Duration.ofDays(1));
        Path appConfig = tmp.resolve("app.properties");
        Files.writeString(appConfig, "security.protocol=SSL\nssl.truststore.location=" + tls.ca() + "\n"
            + "ssl.certificate.location=" + appDir.resolve("app.pem") + "\nssl.key.location=" + appDir.resolve("app.key")
            + "\ndefault.api.timeout.ms=8000\nrequest.timeout.ms=4000\nmax.block.ms=8000\ndelivery.timeout.ms=8000\n");
        app = appConfig.toString();
        ok(cli.run("topics", "create", "--topic", "acl-orders", "--partitions", "3", "--replication-factor", "3",
            "--command-config", admin));
        ok(cli.runWithInput("a\nb\nc\n", "produce", "--topic", "acl-orders", "--command-config", admin));
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

    private static Cli.Result as(String config, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--command-config");
        all.add(config);
        return cli.run(all.toArray(String[]::new));
    }

    /** Exit 1 with one {@code error:} line that names the refusal. */
    private static void refused(Cli.Result r, String contains) {
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        // one error line (the consumer also reports how many records it processed, as Kafka's does)
        List<String> errors = r.err().lines().filter(l -> l.startsWith("error: ")).toList();
        assertThat(errors).as(r.toString()).hasSize(1);
        assertThat(errors.get(0)).as(r.toString()).contains("not authorized to").contains(contains);
        assertThat(r.err().lines().filter(l -> !l.startsWith("error: ") && !l.startsWith("Processed a total of")))
            .as(r.toString()).isEmpty();
    }

    private static long records(String topic) {
        return cli.json("topics", "describe", "--topic", topic, "--command-config", admin)
            .findValues("highWatermark").stream().mapToLong(JsonNode::asLong).sum();
    }

    @Test
    void withoutAnAclEveryRequestIsRefusedAndNothingChanges() {
        refused(cli.runWithInput("x\n", "produce", "--topic", "acl-orders", "--command-config", app), "topic 'acl-orders'");
        refused(as(app, "consume", "--topic", "acl-orders", "--from-beginning", "--max-messages", "1"), "topic 'acl-orders'");
        refused(as(app, "topics", "create", "--topic", "acl-new", "--partitions", "1", "--replication-factor", "1"),
            "CREATE topic 'acl-new'");
        refused(as(app, "topics", "delete", "--topic", "acl-orders"), "DELETE topic 'acl-orders'");
        refused(as(app, "topics", "alter", "--topic", "acl-orders", "--partitions", "4"), "ALTER topic 'acl-orders'");
        refused(as(app, "configs", "alter", "--entity-type", "topic", "--entity-name", "acl-orders", "--add-config",
            "retention.ms=1000"), "topic 'acl-orders'");
        refused(as(app, "configs", "describe", "--entity-type", "topic", "--entity-name", "acl-orders"),
            "topic 'acl-orders'");
        refused(as(app, "quorum", "status"), "DESCRIBE the cluster");
        refused(as(app, "leader-election", "--election-type", "preferred", "--all-topic-partitions"), "ALTER the cluster");
        refused(as(app, "acls", "list"), "DESCRIBE the cluster");
        refused(as(app, "acls", "add", "--allow-principal", "User:app", "--operation", "all", "--topic", "*"),
            "ALTER the cluster");
        refused(as(app, "groups", "delete", "--group", "acl-billing"), "DELETE group 'acl-billing'");
        // a listing shows only what the caller may describe: nothing
        Cli.Result list = as(app, "topics", "list");
        ok(list);
        assertThat(list.outLines()).doesNotContain("acl-orders");

        // nothing changed
        assertThat(records("acl-orders")).isEqualTo(3);
        JsonNode described = cli.json("topics", "describe", "--topic", "acl-orders", "--command-config", admin);
        assertThat(described.path("topics").get(0).path("partitions").size()).isEqualTo(3);
        assertThat(cli.run("topics", "describe", "--topic", "acl-new", "--command-config", admin).exitCode()).isNotZero();
        assertThat(cli.json("configs", "describe", "--entity-type", "topic", "--entity-name", "acl-orders",
            "--command-config", admin).toString()).doesNotContain("\"1000\"");
        assertThat(cli.json("acls", "list", "--topic", "*", "--command-config", admin).path("acls").size()).isZero();
    }

    @Test
    void anAclAddedThroughOneBrokerAppliesOnEveryBrokerWithinASecond() throws Exception {
        ok(cli.run("topics", "create", "--topic", "acl-events", "--partitions", "2", "--replication-factor", "3",
            "--command-config", admin));
        List<ManagedChannel> channels = new ArrayList<>();
        try {
            for (int id = 1; id <= 3; id++) {
                channels.add(mtls(cluster.node(id).brokerPort()));
            }
            for (ManagedChannel ch : channels) {
                assertThat(topicError(ch, "acl-events")).isEqualTo(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
            }
            Cli viaOne = new Cli("127.0.0.1:" + cluster.node(1).brokerPort());
            ok(viaOne.run("acls", "add", "--allow-principal", "User:app", "--operation", "write", "--operation", "read",
                "--topic", "acl-events", "--command-config", admin));
            long added = System.nanoTime();
            for (ManagedChannel ch : channels) {
                while (topicError(ch, "acl-events") != ErrorCode.NONE) {
                    assertThat(Duration.ofNanos(System.nanoTime() - added)).as("the ACL reached every broker")
                        .isLessThan(Duration.ofSeconds(1));
                }
            }
        } finally {
            for (ManagedChannel ch : channels) {
                ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
        JsonNode listed = cli.json("acls", "list", "--topic", "acl-events", "--command-config", admin);
        assertThat(listed.path("acls").size()).isEqualTo(2);
        assertThat(listed.path("acls").get(0).path("principal").asText()).isEqualTo("User:app");
        assertThat(listed.path("acls").get(0).path("host").asText()).isEqualTo("*");
        assertThat(listed.path("acls").get(0).path("resourceType").asText()).isEqualTo("topic");
        assertThat(listed.path("acls").get(0).path("patternType").asText()).isEqualTo("literal");
        assertThat(listed.path("acls").get(0).path("permission").asText()).isEqualTo("allow");

        // the app may now produce; consuming in a group needs READ on the group too
        ok(cli.runWithInput("e1\ne2\n", "produce", "--topic", "acl-events", "--command-config", app));
        refused(as(app, "consume", "--topic", "acl-events", "--group", "acl-readers", "--from-beginning", "--max-messages",
            "2"), "group 'acl-readers'");
        ok(as(admin, "acls", "add", "--allow-principal", "User:app", "--operation", "read", "--group", "acl-",
            "--resource-pattern-type", "prefixed"));
        Cli.Result consumed = as(app, "consume", "--topic", "acl-events", "--group", "acl-readers", "--from-beginning",
            "--max-messages", "2");
        ok(consumed);
        assertThat(consumed.outLines()).containsExactlyInAnyOrder("e1", "e2");

        // a deny wins over the allow; removing it opens the door again
        ok(as(admin, "acls", "add", "--deny-principal", "User:app", "--operation", "write", "--topic", "acl-events"));
        TestCluster.await(() -> cli.runWithInput("e3\n", "produce", "--topic", "acl-events", "--command-config", app)
            .exitCode() == 1, SETTLE, "the deny applies");
        // with WRITE denied on its only topic, the idempotent producer may not even get a producer id (as in Kafka)
        refused(cli.runWithInput("e3\n", "produce", "--topic", "acl-events", "--command-config", app), "WRITE");
        ok(as(admin, "acls", "remove", "--deny-principal", "User:app", "--operation", "write", "--topic", "acl-events"));
        ok(cli.runWithInput("e4\n", "produce", "--topic", "acl-events", "--command-config", app));
        assertThat(records("acl-events")).isEqualTo(3);

        // removing the allows closes it
        ok(as(admin, "acls", "remove", "--allow-principal", "User:app", "--operation", "write", "--operation", "read",
            "--topic", "acl-events"));
        refused(cli.runWithInput("e5\n", "produce", "--topic", "acl-events", "--command-config", app), "topic 'acl-events'");
        assertThat(records("acl-events")).isEqualTo(3);
    }

    @Test
    void anInvalidAclIsRefusedWithOneErrorAndAddsNothing() {
        Cli.Result bad = as(admin, "acls", "add", "--allow-principal", "app", "--operation", "read", "--topic", "x");
        assertThat(bad.exitCode()).as(bad.toString()).isEqualTo(1);
        assertThat(bad.err()).startsWith("error: ").contains("invalid ACL").contains("User:");
        Cli.Result badOp = as(admin, "acls", "add", "--allow-principal", "User:app", "--operation", "fly", "--topic", "x");
        assertThat(badOp.exitCode()).as(badOp.toString()).isEqualTo(2);
        assertThat(badOp.err()).contains("'fly' is not an operation");
        assertThat(cli.json("acls", "list", "--topic", "x", "--command-config", admin).path("acls").size())
            .isZero();
    }

    @Test
    void theKafkaListenerChecksAclsForTheClientCertificatesPrincipal() throws Exception {
        ok(cli.run("topics", "create", "--topic", "acl-kafka", "--partitions", "1", "--replication-factor", "3",
            "--command-config", admin));
        // dev --tls makes kafka.listener TLS with mTLS too: a Kafka client is known by its certificate, as on gRPC
        java.util.Properties p = io.raftline.tests.cluster.KafkaClientSecurity.ssl(tls.ca(), appDir.resolve("app.pem"),
            appDir.resolve("app.key"));
        p.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        p.setProperty("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        p.setProperty("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        p.setProperty("max.block.ms", "8000");
        p.setProperty("delivery.timeout.ms", "8000");
        p.setProperty("request.timeout.ms", "4000");
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                 new org.apache.kafka.clients.producer.KafkaProducer<>(p)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> producer.send(
                    new org.apache.kafka.clients.producer.ProducerRecord<>("acl-kafka", "k", "refused")).get(30, TimeUnit.SECONDS))
                .hasRootCauseInstanceOf(org.apache.kafka.common.errors.TopicAuthorizationException.class);
        }
        assertThat(records("acl-kafka")).isZero();
        ok(as(admin, "acls", "add", "--allow-principal", "User:app", "--operation", "write", "--topic", "acl-kafka"));
        p.setProperty("enable.idempotence", "true");
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                 new org.apache.kafka.clients.producer.KafkaProducer<>(p)) {
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>("acl-kafka", "k", "allowed"))
                .get(30, TimeUnit.SECONDS);
        }
        assertThat(records("acl-kafka")).isEqualTo(1);
        ok(as(admin, "acls", "remove", "--allow-principal", "User:app", "--operation", "write", "--topic", "acl-kafka"));
        // and a Kafka client without a certificate is refused the TLS handshake: it never gets as far as a request
        java.util.Properties anonymous = io.raftline.tests.cluster.KafkaClientSecurity.ssl(tls.ca(), null, null);
        anonymous.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        anonymous.setProperty("request.timeout.ms", "4000");
        anonymous.setProperty("default.api.timeout.ms", "8000");
        try (org.apache.kafka.clients.admin.Admin kafkaAdmin = org.apache.kafka.clients.admin.Admin.create(anonymous)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> kafkaAdmin.listTopics().names().get(30, TimeUnit.SECONDS))
                .hasRootCauseInstanceOf(javax.net.ssl.SSLException.class);
        }
    }

    /**
     * An SDK consumer fetching in incremental fetch sessions (which name only what changed) is refused once its READ
     * ACL is removed: the broker authorizes every partition a session reads at every fetch, so the idle consumer's
     * next fetch, naming nothing, is answered TOPIC_AUTHORIZATION_FAILED and poll throws the SDK's
     * TopicAuthorizationException. DESCRIBE stays, so the refusal can only come from the fetch.
     */
    @Test
    void aConsumersFetchSessionIsRefusedOnceItsReadAclIsRemoved() throws Exception {
        ok(cli.run("topics", "create", "--topic", "acl-session", "--partitions", "3", "--replication-factor", "3",
            "--command-config", admin));
        ok(cli.runWithInput("s1\ns2\ns3\n", "produce", "--topic", "acl-session", "--command-config", admin));
        ok(as(admin, "acls", "add", "--allow-principal", "User:app", "--operation", "read", "--operation", "describe",
            "--topic", "acl-session"));
        for (int id = 1; id <= 3; id++) {
            ManagedChannel ch = mtls(cluster.node(id).brokerPort());
            try {
                TestCluster.await(() -> topicError(ch, "acl-session") == ErrorCode.NONE, SETTLE, "the ACLs applied");
            } finally {
                ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
        java.util.Properties props = new java.util.Properties();
        try (java.io.Reader r = Files.newBufferedReader(Path.of(app))) {
            props.load(r);
        }
        props.setProperty("bootstrap.servers", cluster.bootstrap());
        props.setProperty("auto.offset.reset", "earliest");
        props.setProperty("fetch.max.wait.ms", "100");
        List<io.raftline.client.common.TopicPartition> partitions = List.of(
            new io.raftline.client.common.TopicPartition("acl-session", 0),
            new io.raftline.client.common.TopicPartition("acl-session", 1),
            new io.raftline.client.common.TopicPartition("acl-session", 2));
        double incrementalBefore = consumerFetches("incremental");
        try (io.raftline.client.consumer.RaftlineConsumer<String, String> consumer =
                 new io.raftline.client.consumer.RaftlineConsumer<>(props,
                     new io.raftline.client.common.serialization.StringDeserializer(),
                     new io.raftline.client.common.serialization.StringDeserializer())) {
            consumer.assign(partitions);
            List<String> read = new ArrayList<>();
            TestCluster.await(() -> {
                consumer.poll(java.time.Duration.ofMillis(100)).forEach(r -> read.add(r.value()));
                return read.size() == 3 && consumerFetches("incremental") > incrementalBefore;
            }, SETTLE, "the records read, in a fetch session");
            assertThat(read).containsExactlyInAnyOrder("s1", "s2", "s3");

            ok(as(admin, "acls", "remove", "--allow-principal", "User:app", "--operation", "read", "--topic",
                "acl-session"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> {
                while (System.nanoTime() < deadline) {
                    assertThat(consumer.poll(java.time.Duration.ofMillis(100)).isEmpty()).as("nothing new to read").isTrue();
                }
            }).isInstanceOf(io.raftline.client.errors.TopicAuthorizationException.class)
                .hasMessageContaining("not authorized to READ topic 'acl-session'");
        } finally {
            // whatever happened above, the app keeps no ACL on the topic (the other tests count ACLs)
            as(admin, "acls", "remove", "--allow-principal", "User:app", "--operation", "read", "--operation", "describe",
                "--topic", "acl-session");
        }
        assertThat(cli.json("acls", "list", "--topic", "acl-session", "--command-config", admin).path("acls").size())
            .isZero();
    }

    /** Consumers' fetches of {@code kind} to the brokers' fetch session caches, cluster-wide. */
    private static double consumerFetches(String kind) {
        double total = 0;
        for (io.raftline.tests.cluster.TestNode node : cluster.nodes()) {
            total += io.raftline.tests.cluster.PrometheusText.sum(node.scrapeMetrics(),
                "raftline_fetch_session_requests_total", java.util.Map.of("from", "consumer", "kind", kind));
        }
        return total;
    }

    private static ManagedChannel mtls(int port) throws IOException {
        return NettyChannelBuilder.forAddress("localhost", port)
            .sslContext(GrpcSslContexts.configure(SslContextBuilder.forClient(), SslProvider.JDK)
                .trustManager(tls.ca().toFile()).keyManager(appDir.resolve("app.pem").toFile(),
                    appDir.resolve("app.key").toFile()).build()).build();
    }

    /** The error this broker's Metadata answers for the topic, as the app. */
    private static ErrorCode topicError(ManagedChannel ch, String topic) {
        MetadataResponse r = BrokerServiceGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
            .metadata(MetadataRequest.newBuilder().addTopics(topic).build());
        return r.getTopics(0).getError().getCode();
    }
}
