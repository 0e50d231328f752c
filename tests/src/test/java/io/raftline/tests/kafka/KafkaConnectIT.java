package io.raftline.tests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.common.TestPorts;
import io.raftline.tests.cluster.TestCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.SplittableRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kafka Connect standalone ({@code org.apache.kafka.connect.cli.ConnectStandalone}: connect-runtime with connect-file's
 * FileStreamSource and FileStreamSink connectors, 4.3.1, the newest connect-file on Maven Central), run as its own
 * process against the brokers' Kafka listeners: the source connector reads a file into a topic, the sink connector
 * writes that topic into another file.
 */
@Timeout(300)
class KafkaConnectIT {

    private static final String TOPIC = "connect-lines";
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 .,;:!?-_=+éüß€";

    @RegisterExtension
    static final KafkaListenerCluster KAFKA = new KafkaListenerCluster();

    @Test
    void fileSourceAndSinkConnectorsMoveAFileThroughATopic() throws Exception {
        long seed = Long.getLong("connect.seed", System.nanoTime());
        System.out.println("KafkaConnectIT seed " + seed + " (rerun with -Dconnect.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        KAFKA.createTopic(TOPIC, 1, 3);

        Path dir = Files.createTempDirectory("kafka-connect-");
        Path source = dir.resolve("source.txt");
        Path sink = dir.resolve("sink.txt");
        List<String> lines = new ArrayList<>();
        appendLines(source, random, 150, lines);
        int restPort = TestPorts.free();
        Path worker = write(dir.resolve("worker.properties"), "bootstrap.servers=" + KAFKA.cluster().kafkaBootstrap(),
            "key.converter=org.apache.kafka.connect.storage.StringConverter",
            "value.converter=org.apache.kafka.connect.storage.StringConverter",
            "offset.storage.file.filename=" + dir.resolve("connect.offsets"), "offset.flush.interval.ms=500",
            "listeners=http://127.0.0.1:" + restPort);
        Path sourceConfig = write(dir.resolve("file-source.properties"), "name=file-source",
            "connector.class=org.apache.kafka.connect.file.FileStreamSourceConnector", "tasks.max=1", "file=" + source,
            "topic=" + TOPIC);
        Path sinkConfig = write(dir.resolve("file-sink.properties"), "name=file-sink",
            "connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector", "tasks.max=1", "file=" + sink,
            "topics=" + TOPIC);

        Path log = dir.resolve("connect.log");
        Process connect = ApacheKafka.startConnect(log, List.of("-Dlog4j2.configurationFile=" + ApacheKafka.infoToStdout(dir)),
            "org.apache.kafka.connect.cli.ConnectStandalone", worker.toString(), sourceConfig.toString(), sinkConfig.toString());
        try {
            awaitMoved(connect, log, source, sink, lines);
            for (String connector : List.of("file-source", "file-sink")) {
                String status = rest(restPort, "/connectors/" + connector + "/status");
                assertThat(status).as(connector).contains("\"state\":\"RUNNING\"").doesNotContain("FAILED");
            }

            // Connect keeps running: lines appended later arrive too, after the first ones
            appendLines(source, random, 60, lines);
            awaitMoved(connect, log, source, sink, lines);

            // Connect's own bounds on stopping are 5 s per task and connector and its clients' 30 s close timeouts;
            // once CI saw it take over 30 s (log not kept): now a stop past 60 s shows the log and Connect's threads
            long stopping = System.nanoTime();
            String threads = ApacheKafka.stopOrThreads(connect, Duration.ofSeconds(60));
            if (threads != null) {
                throw new AssertionError("Connect did not stop within 60 s of SIGTERM\n" + ApacheKafka.tail(log, 60)
                    + "\n--- Connect's threads\n" + threads);
            }
            System.out.printf("KafkaConnectIT: Connect stopped %d ms after SIGTERM%n", (System.nanoTime() - stopping) / 1_000_000);
            assertThat(Files.readString(log)).as(ApacheKafka.tail(log, 40)).contains("Kafka Connect stopped");
        } catch (Throwable t) {
            System.out.println(ApacheKafka.tail(log, 80));
            throw t;
        } finally {
            ApacheKafka.stop(connect, Duration.ofSeconds(10));
        }
    }

    /**
     * Waits until the topic holds exactly {@code lines}, one record each at offsets 0.. in order, the sink file equals
     * the source file, and the sink's group has committed the topic's end.
     */
    private static void awaitMoved(Process connect, Path log, Path source, Path sink, List<String> lines) throws Exception {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        List<ConsumerRecord<String, String>> read = new ArrayList<>();
        Properties cp = new Properties();
        cp.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        cp.setProperty("enable.auto.commit", "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            TestCluster.await(() -> {
                assertThat(connect.isAlive()).as("Connect is running\n" + ApacheKafka.tail(log, 60)).isTrue();
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
                return read.size() >= lines.size();
            }, Duration.ofSeconds(60), lines.size() + " records on " + TOPIC);
            consumer.poll(Duration.ofMillis(500)).forEach(read::add);
        }
        assertThat(read).hasSize(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            ConsumerRecord<String, String> r = read.get(i);
            assertThat(r.offset()).isEqualTo(i);
            assertThat(r.key()).isNull();
            assertThat(r.value()).as("record %d", i).isEqualTo(lines.get(i));
        }
        TestCluster.await(() -> Files.exists(sink) && readLines(sink).equals(lines), Duration.ofSeconds(60),
            "the sink file to equal the source file's " + lines.size() + " lines");
        assertThat(Files.readString(sink, StandardCharsets.UTF_8)).isEqualTo(Files.readString(source, StandardCharsets.UTF_8));
        AdminCalls.eventually(() -> {
            OffsetAndMetadata committed = AdminCalls.get(KAFKA.admin().listConsumerGroupOffsets("connect-file-sink")
                .partitionsToOffsetAndMetadata()).get(tp);
            return committed != null && committed.offset() == lines.size();
        }, "the group connect-file-sink to commit offset " + lines.size());
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            return List.of();
        }
    }

    /** Appends {@code count} lines of 0 to 80 seeded characters to the file, and to {@code lines}. */
    private static void appendLines(Path file, SplittableRandom random, int count, List<String> lines) throws Exception {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < count; i++) {
            StringBuilder line = new StringBuilder("line " + lines.size() + ": ");
            for (int c = random.nextInt(81); c > 0; c--) {
                line.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            }
            lines.add(line.toString());
            text.append(line).append('\n');
        }
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static Path write(Path file, String... lines) throws Exception {
        Files.writeString(file, String.join("\n", lines) + "\n");
        return file;
    }

    private static String rest(int port, String path) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(path + ": " + answer.body()).isEqualTo(200);
        return answer.body();
    }
}
