package io.raftline.tests.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Client-id quotas on a one-node cluster, set with {@code configs alter --entity-type clients} and kept in the quorum:
 * a producer and a consumer with a quota run at its rate (within 10 %), others are not throttled, an invalid quota
 * is refused with one error. The issue asks for the rate check; each run is about 15 s so that the one second of burst
 * a bucket allows stays under the tolerance.
 */
@Timeout(300)
class QuotaIT {

    private static final int RECORD = 1000;
    private static final long PRODUCE_RATE = 150_000;
    private static final long FETCH_RATE = 150_000;
    /** Requests in flight when a throttle closes: five of kafka-clients' 16 KiB batches, or one 64 KiB fetch. */
    private static final long IN_FLIGHT = 5 * 16_384;
    private static TestCluster cluster;
    private static Cli cli;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(1).start();
        cli = new Cli(cluster.bootstrap());
        ok(cli.run("topics", "create", "--topic", "quota", "--partitions", "1", "--replication-factor", "1"));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * The highest rate a quota lets {@code records} pass at, measured at {@code measured} B/s: a throttle lets through
     * no more than {@code rate × (1 s + T)} plus the requests in flight when it closes (Throttle's contract), so over
     * a run of T seconds the rate may be above the quota by one second's burst spread over T. The run then took
     * {@code bytes / measured} seconds. (A fixed 10 % failed once on a 9 s run: 165,610 B/s for 150,000.)
     */
    private static double ceiling(long rate, int records, double measured) {
        double bytes = records * (double) RECORD;
        double seconds = bytes / measured;
        return (rate * (1 + seconds) + IN_FLIGHT) / seconds;
    }

    private static void ok(Cli.Result r) {
        assertThat(r.exitCode()).as(r.toString()).isZero();
    }

    @Test
    void aProducerAndAConsumerRunAtTheirQuota() {
        ok(cli.run("configs", "alter", "--entity-type", "clients", "--entity-name", "quota-writer", "--add-config",
            "producer_byte_rate=" + PRODUCE_RATE));
        ok(cli.run("configs", "alter", "--entity-type", "clients", "--entity-name", "quota-reader", "--add-config",
            "consumer_byte_rate=" + FETCH_RATE));
        JsonNode described = cli.json("configs", "describe", "--entity-type", "clients", "--entity-name", "quota-writer");
        assertThat(described.path("configs").get(0).path("name").asText()).isEqualTo("producer_byte_rate");
        assertThat(described.path("configs").get(0).path("value").asText()).isEqualTo(String.valueOf(PRODUCE_RATE));

        int records = (int) (PRODUCE_RATE * 15 / RECORD);
        JsonNode produced = cli.json("perf", "produce", "--topic", "quota", "--num-records", String.valueOf(records),
            "--record-size", String.valueOf(RECORD), "--throughput", "-1", "--producer-property", "client.id=quota-writer",
            "--producer-property", "linger.ms=5");
        double producedBytesPerSec = produced.path("recordsPerSec").asDouble() * RECORD;
        assertThat(produced.path("errors").asLong()).isZero();
        assertThat(producedBytesPerSec).as("produced B/s against a quota of %d", PRODUCE_RATE)
            .isBetween(PRODUCE_RATE * 0.9, ceiling(PRODUCE_RATE, records, producedBytesPerSec));

        JsonNode consumed = cli.json("perf", "consume", "--topic", "quota", "--messages", String.valueOf(records),
            "--consumer-property", "client.id=quota-reader", "--consumer-property", "max.partition.fetch.bytes=65536");
        double fetchedBytesPerSec = consumed.path("fetchMsgsPerSec").asDouble() * RECORD;
        System.out.printf("quota: produced %.0f B/s (quota %d), fetched %.0f B/s (quota %d)%n", producedBytesPerSec,
            PRODUCE_RATE, fetchedBytesPerSec, FETCH_RATE);
        assertThat(fetchedBytesPerSec).as("fetched B/s against a quota of %d", FETCH_RATE)
            .isBetween(FETCH_RATE * 0.9, ceiling(FETCH_RATE, records, fetchedBytesPerSec));

        // a client id without a quota is not held back (the same records read again, well above the reader's quota)
        JsonNode free = cli.json("perf", "consume", "--topic", "quota", "--messages", String.valueOf(records),
            "--consumer-property", "client.id=unlimited");
        assertThat(free.path("fetchMsgsPerSec").asDouble() * RECORD).isGreaterThan(FETCH_RATE * 2.0);

        // a quota removed is gone (docs/security.md's commands)
        ok(cli.run("configs", "alter", "--entity-type", "clients", "--entity-name", "quota-writer", "--delete-config",
            "producer_byte_rate"));
        assertThat(cli.json("configs", "describe", "--entity-type", "clients", "--entity-name", "quota-writer")
            .path("configs").size()).isZero();
        ok(cli.run("configs", "alter", "--entity-type", "users", "--entity-name", "alice", "--add-config",
            "request_percentage=50"));
        assertThat(cli.json("configs", "describe", "--entity-type", "users", "--entity-name", "alice").path("configs")
            .get(0).path("value").asText()).isEqualTo("50");
    }

    @Test
    void aKafkaClientIsToldItsThrottleTimeAndHeldToItsQuota() throws Exception {
        ok(cli.run("configs", "alter", "--entity-type", "clients", "--entity-name", "kafka-writer", "--add-config",
            "producer_byte_rate=" + PRODUCE_RATE));
        java.util.Properties p = new java.util.Properties();
        p.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        p.setProperty("client.id", "kafka-writer");
        p.setProperty("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        p.setProperty("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        p.setProperty("linger.ms", "5");
        int records = (int) (PRODUCE_RATE * 10 / RECORD);
        byte[] value = new byte[RECORD];
        double throttleMax;
        long start = System.nanoTime();
        try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> producer =
                 new org.apache.kafka.clients.producer.KafkaProducer<>(p)) {
            java.util.List<java.util.concurrent.Future<?>> sent = new java.util.ArrayList<>();
            for (int i = 0; i < records; i++) {
                sent.add(producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>("quota", value)));
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
            throttleMax = producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("produce-throttle-time-max")).mapToDouble(e ->
                    ((Number) e.getValue().metricValue()).doubleValue()).max().orElse(0);
        }
        double bytesPerSec = records * (double) RECORD / ((System.nanoTime() - start) / 1e9);
        System.out.printf("quota: kafka-clients produced %.0f B/s (quota %d), throttle max %.0f ms%n", bytesPerSec,
            PRODUCE_RATE, throttleMax);
        assertThat(throttleMax).as("the producer was told to wait (ThrottleTimeMs)").isPositive();
        assertThat(bytesPerSec).isBetween(PRODUCE_RATE * 0.8, ceiling(PRODUCE_RATE, records, bytesPerSec));
    }

    @Test
    void anInvalidQuotaIsRefusedWithOneError() {
        Cli.Result bad = cli.run("configs", "alter", "--entity-type", "users", "--entity-name", "mallory", "--add-config",
            "producer_byte_rate=-5");
        assertThat(bad.exitCode()).as(bad.toString()).isEqualTo(1);
        assertThat(bad.err()).startsWith("error: ").contains("producer_byte_rate");
        Cli.Result unknown = cli.run("configs", "alter", "--entity-type", "users", "--entity-name", "mallory", "--add-config",
            "bytes_per_fortnight=5");
        assertThat(unknown.exitCode()).as(unknown.toString()).isEqualTo(1);
        assertThat(unknown.err()).contains("unknown quota 'bytes_per_fortnight'");
        assertThat(cli.json("configs", "describe", "--entity-type", "users", "--entity-name", "mallory").path("configs")
            .size()).isZero();
    }
}
