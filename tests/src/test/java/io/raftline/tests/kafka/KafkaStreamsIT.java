package io.raftline.tests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.tests.cluster.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Kafka Streams 4.4 application, in this JVM, against the brokers' Kafka listeners: a stateless step (split and
 * lower-case) and a stateful count keyed by word, which makes Streams create a repartition topic and a compacted
 * changelog through Kafka's Admin and run its own assignor in a consumer group, at least once.
 */
@Timeout(300)
class KafkaStreamsIT {

    private static final String APP = "raftline-word-count";
    private static final String INPUT = "sentences";
    private static final String OUTPUT = "word-counts";
    private static final List<String> WORDS = List.of("raft", "log", "Broker", "offset", "GROUP", "leader", "epoch",
        "fetch", "Commit", "quorum");

    @RegisterExtension
    static final KafkaListenerCluster KAFKA = new KafkaListenerCluster();

    /**
     * Counts words until the output topic holds the counts of every sentence produced; then, with its local state
     * wiped, counts more sentences: the totals are right only if Streams restored its store from the changelog.
     */
    @Test
    void wordCountWithRepartitionAndChangelogTopics() throws Exception {
        long seed = Long.getLong("streams.seed", System.nanoTime());
        System.out.println("KafkaStreamsIT seed " + seed + " (rerun with -Dstreams.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        KAFKA.createTopic(INPUT, 3, 3);
        KAFKA.createTopic(OUTPUT, 3, 3);

        Map<String, Long> expected = new TreeMap<>();
        produceSentences(random, 0, 200, expected);
        countUntil(expected, Files.createTempDirectory("streams-state"));
        produceSentences(random, 200, 100, expected);
        countUntil(expected, Files.createTempDirectory("streams-state"));

        // Streams made its internal topics through the listener, the changelog compacted
        String changelog = APP + "-counts-changelog";
        String repartition = APP + "-by-word-repartition";
        assertThat(KAFKA.admin().listTopics().names().get(30, TimeUnit.SECONDS)).contains(changelog, repartition);
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, changelog);
        assertThat(KAFKA.admin().describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource)
            .get("cleanup.policy").value()).isEqualTo("compact");
        // and committed its input's end (every sentence) in its group
        long committed = KAFKA.admin().listConsumerGroupOffsets(APP).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
            .entrySet().stream().filter(e -> e.getKey().topic().equals(INPUT)).mapToLong(e -> e.getValue().offset()).sum();
        assertThat(committed).isEqualTo(300);
        // and purged its repartition topic up to what it had consumed of it (DeleteRecords through the listener)
        Map<TopicPartition, OffsetSpec> earliest = new java.util.HashMap<>();
        for (int p = 0; p < 3; p++) {
            earliest.put(new TopicPartition(repartition, p), OffsetSpec.earliest());
        }
        long purged = KAFKA.admin().listOffsets(earliest).all().get(30, TimeUnit.SECONDS).values().stream()
            .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset).sum();
        assertThat(purged).as("records deleted from %s", repartition).isPositive();
    }

    /** Sentences {@code s<first>..} of 1 to 5 words, adding each word (lower-cased) to {@code expected}. */
    private static void produceSentences(SplittableRandom random, int first, int count, Map<String, Long> expected) {
        Properties pp = new Properties();
        pp.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
        pp.setProperty("acks", "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
            for (int i = first; i < first + count; i++) {
                StringBuilder sentence = new StringBuilder();
                for (int w = random.nextInt(1, 6); w > 0; w--) {
                    String word = WORDS.get(random.nextInt(WORDS.size()));
                    sentence.append(word).append(' ');
                    expected.merge(word.toLowerCase(Locale.ROOT), 1L, Long::sum);
                }
                producer.send(new ProducerRecord<>(INPUT, "s" + i, sentence.toString().strip()));
            }
            producer.flush();
        }
    }

    /** Runs the application with its state in {@code stateDir} until the output topic's latest counts are these. */
    private static void countUntil(Map<String, Long> expected, Path stateDir) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
            .flatMapValues(sentence -> Arrays.asList(sentence.toLowerCase(Locale.ROOT).split(" ")))
            .groupBy((key, word) -> word, Grouped.with("by-word", Serdes.String(), Serdes.String()))
            .count(Materialized.as("counts"))
            .toStream()
            .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        Properties sp = new Properties();
        sp.setProperty(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        sp.setProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.cluster().kafkaBootstrap());
        sp.setProperty(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        sp.setProperty(StreamsConfig.REPLICATION_FACTOR_CONFIG, "3");
        sp.setProperty(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        sp.setProperty(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
        sp.setProperty(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, "200");
        sp.setProperty(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
        sp.setProperty(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        // Streams' members do not leave the group on close: a short session lets the next run take over soon
        sp.setProperty(StreamsConfig.consumerPrefix("session.timeout.ms"), "6000");
        sp.setProperty(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), "1000");
        Map<String, Long> counts = new TreeMap<>();
        try (KafkaStreams streams = new KafkaStreams(builder.build(), sp)) {
            streams.start();
            Properties cp = new Properties();
            cp.setProperty("bootstrap.servers", KAFKA.cluster().kafkaBootstrap());
            cp.setProperty("enable.auto.commit", "false");
            try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(cp, new StringDeserializer(), new LongDeserializer())) {
                List<TopicPartition> all = List.of(new TopicPartition(OUTPUT, 0), new TopicPartition(OUTPUT, 1),
                    new TopicPartition(OUTPUT, 2));
                consumer.assign(all);
                consumer.seekToBeginning(all);
                TestCluster.await(() -> {
                    assertThat(streams.state()).isNotIn(KafkaStreams.State.ERROR, KafkaStreams.State.PENDING_ERROR);
                    consumer.poll(Duration.ofMillis(200)).forEach(r -> counts.put(r.key(), r.value()));
                    return counts.equals(expected);
                }, Duration.ofSeconds(90), "the word counts " + expected + " on " + OUTPUT);
            }
            assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
        }
    }
}
