package io.raftline.tests.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.raftline.cli.command.dev.DevTls;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.KafkaClientSecurity;
import io.raftline.tests.cluster.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SCRAM-SHA-512 users on one 3-node cluster whose broker.listener and kafka.listener are SASL_SSL
 * ({@code ssl.client.auth=requested}: the nodes still replicate with their certificates) and whose sessions last
 * {@code connections.max.reauth.ms=4000}: {@code raftline users} adds, lists and removes users; a user with an ACL
 * produces and consumes with the CLI (gRPC) and with kafka-clients (SaslHandshake/SaslAuthenticate), which
 * re-authenticates as its sessions end (KIP-368); a wrong password or no credential is refused with one error and
 * stores nothing; removing a user ends its open connections' sessions at their next request.
 */
@Timeout(600)
class SaslIT {

    private static final String TOPIC = "sasl-orders";
    private static TestCluster cluster;
    private static Cli cli;
    private static DevTls tls;
    private static String admin;

    @TempDir
    static Path tmp;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.builder().combined(3).tls()
            .config("broker.listener.security.protocol", "SASL_SSL")
            .config("kafka.listener.security.protocol", "SASL_SSL")
            .config("ssl.client.auth", "requested")
            .config("connections.max.reauth.ms", "4000")
            .start();
        cli = new Cli(cluster.bootstrap());
        tls = cluster.tls();
        admin = tls.clientProperties().toString();
        ok(cli.run("topics", "create", "--topic", TOPIC, "--partitions", "3", "--replication-factor", "3",
            "--command-config", admin));
        addUser("alice", "alice-secret");
        for (String op : List.of("write", "read", "describe")) {
            ok(cli.run("acls", "add", "--allow-principal", "User:alice", "--operation", op, "--topic", TOPIC,
                "--command-config", admin));
        }
        ok(cli.run("acls", "add", "--allow-principal", "User:alice", "--operation", "read", "--group", "*",
            "--command-config", admin));
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

    private static void addUser(String name, String password) throws Exception {
        Path file = Files.writeString(tmp.resolve(name + ".password"), password + "\n");
        ok(cli.run("users", "add", "--name", name, "--password-file", file.toString(), "--command-config", admin));
    }

    /** A client config file for SCRAM user {@code name} (no certificate). */
    private static String scramConfig(String name, String password) throws Exception {
        return Files.writeString(tmp.resolve(name + "-" + password.hashCode() + ".properties"),
            "security.protocol=SASL_SSL\nssl.truststore.location=" + tls.ca() + "\nsasl.username=" + name
                + "\nsasl.password=" + password + "\ndefault.api.timeout.ms=8000\nrequest.timeout.ms=4000\n"
                + "max.block.ms=8000\ndelivery.timeout.ms=8000\n").toString();
    }

    private static Properties sdk(String name, String password) {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", cluster.bootstrap());
        p.setProperty("security.protocol", "SASL_SSL");
        p.setProperty("ssl.truststore.location", tls.ca().toString());
        p.setProperty("sasl.username", name);
        p.setProperty("sasl.password", password);
        p.setProperty("max.block.ms", "8000");
        p.setProperty("delivery.timeout.ms", "8000");
        p.setProperty("request.timeout.ms", "4000");
        return p;
    }

    private static Properties kafka(String name, String password) {
        Properties p = KafkaClientSecurity.scram(tls.ca(), name, password);
        p.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        p.setProperty("max.block.ms", "8000");
        p.setProperty("delivery.timeout.ms", "8000");
        p.setProperty("request.timeout.ms", "4000");
        return p;
    }

    private static long records() {
        return cli.json("topics", "describe", "--topic", TOPIC, "--command-config", admin)
            .findValues("highWatermark").stream().mapToLong(JsonNode::asLong).sum();
    }

    /** Exit 1 with one {@code error:} line containing {@code contains}. */
    private static void refused(Cli.Result r, String contains) {
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        List<String> errors = r.err().lines().filter(l -> l.startsWith("error: ")).toList();
        assertThat(errors).as(r.toString()).hasSize(1);
        assertThat(errors.get(0)).as(r.toString()).contains(contains);
    }

    @Test
    void usersAreListedWithoutSecretsAndAnUnknownOneCannotBeRemoved() throws Exception {
        JsonNode users = cli.json("users", "list", "--command-config", admin);
        assertThat(users.path("users").toString()).contains("{\"name\":\"alice\",\"mechanism\":\"SCRAM-SHA-512\","
            + "\"iterations\":4096}").doesNotContain("secret").doesNotContain("salt");
        refused(cli.run("users", "remove", "--name", "nobody", "--command-config", admin),
            "user 'nobody' has no SCRAM-SHA-512 credential");
        Cli.Result empty = cli.runWithInput("\n", "users", "add", "--name", "x", "--command-config", admin);
        refused(empty, "empty password");
        assertThat(cli.json("users", "list", "--command-config", admin).path("users").size()).isEqualTo(users.path("users").size());
    }

    @Test
    void aScramUserProducesAndConsumesOverGrpcAndTheNodesStillReplicate() throws Exception {
        String alice = scramConfig("alice", "alice-secret");
        long before = records();
        ok(cli.runWithInput("g-1\ng-2\ng-3\n", "produce", "--topic", TOPIC, "--acks", "all", "--command-config", alice));
        assertThat(records()).isEqualTo(before + 3);
        Cli.Result read = cli.run("consume", "--topic", TOPIC, "--from-beginning", "--max-messages", "" + (before + 3),
            "--timeout-ms", "30000", "--command-config", alice);
        ok(read);
        assertThat(read.out().lines().toList()).contains("g-1", "g-2", "g-3");
        // the followers fetch from broker.listener with their node certificates: every replica stays in the ISR
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (JsonNode p : cli.json("topics", "describe", "--topic", TOPIC, "--command-config", admin).findValues("isr")) {
                assertThat(p.size()).isEqualTo(3);
            }
        });
    }

    @Test
    void aWrongPasswordOrNoCredentialIsRefusedWithOneErrorAndStoresNothing() throws Exception {
        long before = records();
        refused(cli.runWithInput("x\n", "produce", "--topic", TOPIC, "--command-config", scramConfig("alice", "guess")),
            "authentication failed: invalid credentials for user 'alice' with SCRAM-SHA-512");
        refused(cli.runWithInput("x\n", "produce", "--topic", TOPIC, "--command-config", scramConfig("mallory", "m")),
            "authentication failed: invalid credentials for user 'mallory'");
        String none = Files.writeString(tmp.resolve("none.properties"), "security.protocol=SSL\nssl.truststore.location="
            + tls.ca() + "\ndefault.api.timeout.ms=8000\nrequest.timeout.ms=4000\nmax.block.ms=8000\n").toString();
        refused(cli.run("topics", "list", "--command-config", none), "SASL session required");
        assertThat(records()).isEqualTo(before);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(kafka("alice", "guess"), new StringSerializer(),
            new StringSerializer())) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>(TOPIC, "k", "no")).get(30, TimeUnit.SECONDS))
                .hasRootCauseInstanceOf(org.apache.kafka.common.errors.SaslAuthenticationException.class)
                .rootCause().hasMessageContaining("invalid credentials");
        }
        assertThat(records()).isEqualTo(before);
    }

    @Test
    void kafkaClientsAuthenticateWithScramAndReauthenticateAsSessionsEnd() throws Exception {
        long before = records();
        java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(kafka("alice", "alice-secret"),
            new StringSerializer(), new StringSerializer())) {
            // one record every 250 ms for 10 s: more than two 4 s sessions on one connection, each re-authenticated
            // before it ends (a send on an ended session would close the connection and fail)
            long start = System.nanoTime();
            Awaitility.await().pollInterval(Duration.ofMillis(250)).atMost(Duration.ofSeconds(60)).until(() -> {
                producer.send(new ProducerRecord<>(TOPIC, "k", "kafka-" + count.get())).get(30, TimeUnit.SECONDS);
                count.incrementAndGet();
                return System.nanoTime() - start >= TimeUnit.SECONDS.toNanos(10);
            });
        }
        int sent = count.get();
        assertThat(records()).isEqualTo(before + sent);
        Properties c = kafka("alice", "alice-secret");
        c.setProperty("group.id", "sasl-kafka-readers");
        c.setProperty("auto.offset.reset", "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    values.add(r.value());
                }
                return values.stream().filter(v -> v.startsWith("kafka-")).count() >= sent;
            });
        }
    }

    @Test
    void removingAUserEndsTheSessionsOfItsOpenConnections() throws Exception {
        addUser("bob", "bob-secret");
        ok(cli.run("acls", "add", "--allow-principal", "User:bob", "--operation", "write", "--topic", TOPIC,
            "--command-config", admin));
        try (RaftlineProducer<String, String> sdk = new RaftlineProducer<>(sdk("bob", "bob-secret"),
                 new io.raftline.client.common.serialization.StringSerializer(),
                 new io.raftline.client.common.serialization.StringSerializer());
             KafkaProducer<String, String> kafka = new KafkaProducer<>(kafka("bob", "bob-secret"), new StringSerializer(),
                 new StringSerializer())) {
            sdk.send(new io.raftline.client.producer.ProducerRecord<>(TOPIC, "k", "bob-1")).get(30, TimeUnit.SECONDS);
            kafka.send(new ProducerRecord<>(TOPIC, "k", "bob-2")).get(30, TimeUnit.SECONDS);
            long before = records();
            ok(cli.run("users", "remove", "--name", "bob", "--command-config", admin));
            // the same connections, the next request: refused (each broker applies the removal within a second)
            Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThatThrownBy(() ->
                    sdk.send(new io.raftline.client.producer.ProducerRecord<>(TOPIC, "k", "bob-3")).get(30, TimeUnit.SECONDS))
                .hasRootCauseInstanceOf(io.raftline.client.errors.SaslAuthenticationException.class));
            // kafka-clients: the broker closes the connection at its next request; the producer reconnects, its
            // authentication fails, and the record (its partition's leader known from cached metadata) is never sent
            assertThatThrownBy(() -> kafka.send(new ProducerRecord<>(TOPIC, "k", "bob-4")).get(30, TimeUnit.SECONDS))
                .isInstanceOf(java.util.concurrent.ExecutionException.class);
            assertThat(kafka.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("failed-authentication-total") && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> (Double) e.getValue().metricValue()).sum()).isGreaterThanOrEqualTo(1);
            assertThat(records()).isEqualTo(before);
        }
        // and a new Kafka client as bob is refused at once with the listener's words
        try (KafkaProducer<String, String> fresh = new KafkaProducer<>(kafka("bob", "bob-secret"), new StringSerializer(),
            new StringSerializer())) {
            assertThatThrownBy(() -> fresh.send(new ProducerRecord<>(TOPIC, "k", "bob-5")).get(30, TimeUnit.SECONDS))
                .hasRootCauseInstanceOf(org.apache.kafka.common.errors.SaslAuthenticationException.class);
        }
    }
}
