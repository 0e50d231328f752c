package io.raftline.tests.kafka;

import static io.raftline.tests.kafka.AdminCalls.eventually;
import static io.raftline.tests.kafka.AdminCalls.failure;
import static io.raftline.tests.kafka.AdminCalls.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.DeleteConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.DescribeProducersResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kafka-clients 4.4's Admin (and consumer) against the Kafka listeners of one 3-node cluster, for the admin APIs
 * beyond topics: each call is followed by a look at the state it changed (configs read back, also over gRPC; records
 * produced to new partitions; the low watermark and what a consumer reads; groups and their offsets gone; leaders
 * moved; producers listed), and each API is refused at least once with one clear Kafka error that changes nothing.
 */
@Timeout(300)
class KafkaAdminApisIT {


    private static TestCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(3).groupTesting(3).heap("-Xmx256m").start();
        admin = AdminCalls.admin(cluster);
    }

    @AfterAll
    static void stop() {
        AdminCalls.close(admin, cluster);
    }



    private static void createTopic(String name, int partitions) throws Exception {
        get(admin.createTopics(List.of(new NewTopic(name, partitions, (short) 3))).all());
        awaitDescribed(name, d -> d.partitions().size() == partitions
            && d.partitions().stream().allMatch(p -> p.leader() != null && p.isr().size() == 3), "every partition led, ISR 3");
    }

    private static void awaitDescribed(String topic, java.util.function.Predicate<TopicDescription> test, String what) {
        eventually(() -> test.test(get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic)), topic + ": " + what);
    }

    private static KafkaProducer<String, String> producer() {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        p.setProperty("acks", "all");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static void produce(String topic, int partition, int count, String prefix) throws Exception {
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, partition, "k" + i, prefix + i)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static KafkaConsumer<String, String> consumer(String group) {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        p.setProperty("auto.offset.reset", "earliest");
        p.setProperty("enable.auto.commit", "false");
        if (group != null) {
            p.setProperty("group.id", group);
        }
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    /** Polls until {@code count} records arrived (or fails after 30 s). */
    private static List<ConsumerRecord<String, String>> poll(KafkaConsumer<String, String> consumer, int count) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        TestCluster.await(() -> {
            consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            return out.size() >= count;
        }, AdminCalls.WAIT, count + " records");
        return out;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Configs

    private static Config describe(ConfigResource resource) throws Exception {
        return get(admin.describeConfigs(List.of(resource)).all()).get(resource);
    }

    private static void awaitConfig(ConfigResource resource, String name, String value, ConfigEntry.ConfigSource source) {
        eventually(() -> {
            ConfigEntry e = describe(resource).get(name);
            return e != null && value.equals(e.value()) && e.source() == source;
        }, resource + " " + name + "=" + value + " from " + source);
    }

    private static AlterConfigOp set(String name, String value) {
        return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
    }

    /** A new topic with retention.ms=3600000 and max.message.bytes=2000000 set on it (through IncrementalAlterConfigs). */
    private static ConfigResource topicWithTwoConfigs(String name) throws Exception {
        createTopic(name, 1);
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, name);
        get(admin.incrementalAlterConfigs(Map.of(topic, List.of(set("retention.ms", "3600000"),
            set("max.message.bytes", "2000000")))).all());
        awaitConfig(topic, "retention.ms", "3600000", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        awaitConfig(topic, "max.message.bytes", "2000000", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        return topic;
    }

    @Test
    void incrementalAlterConfigsChangesTopicConfigsAndABadChangeChangesNothing() throws Exception {
        ConfigResource topic = topicWithTwoConfigs("cfg-topic");
        // the same config through gRPC (the Raftline SDK): one cluster
        io.raftline.client.admin.ConfigResource ours = new io.raftline.client.admin.ConfigResource(
            io.raftline.client.admin.ConfigResource.Type.TOPIC, "cfg-topic");
        // (from whichever broker it asks, once that broker's image has the change)
        eventually(() -> {
            String seen = cluster.admin().describeConfigs(List.of(ours)).all().get(30, TimeUnit.SECONDS).get(ours).toString();
            return seen.contains("retention.ms") && seen.contains("3600000");
        }, "the config read over gRPC");

        // refusals: each one clear error, the config unchanged
        assertThat(failure(() -> get(admin.incrementalAlterConfigs(Map.of(topic, List.of(set("retention.ms", "soon")))).all())))
            .isInstanceOf(InvalidConfigurationException.class);
        assertThat(failure(() -> get(admin.incrementalAlterConfigs(Map.of(topic, List.of(set("no.such.config", "1")))).all())))
            .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("no.such.config");
        // one good op and one bad one in a resource: neither is applied
        assertThat(failure(() -> get(admin.incrementalAlterConfigs(Map.of(topic, List.of(set("retention.ms", "1000"),
            set("max.message.bytes", "-5")))).all()))).isInstanceOf(InvalidConfigurationException.class);
        assertThat(failure(() -> get(admin.incrementalAlterConfigs(Map.of(topic, List.of(new AlterConfigOp(
            new ConfigEntry("retention.ms", "5"), AlterConfigOp.OpType.APPEND)))).all())))
            .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("APPEND");
        ConfigResource missing = new ConfigResource(ConfigResource.Type.TOPIC, "no-such-topic");
        assertThat(failure(() -> get(admin.incrementalAlterConfigs(Map.of(missing, List.of(set("retention.ms", "1")))).all())))
            .isInstanceOf(UnknownTopicOrPartitionException.class);
        // validate-only: accepted, nothing written
        get(admin.incrementalAlterConfigs(Map.of(topic, List.of(set("retention.ms", "7"))),
            new AlterConfigsOptions().validateOnly(true)).all());
        Config now = describe(topic);
        assertThat(now.get("retention.ms").value()).isEqualTo("3600000");
        assertThat(now.get("max.message.bytes").value()).isEqualTo("2000000");
        assertThat(now.get("cleanup.policy").value()).isEqualTo("delete");

        // DELETE: back to the default
        get(admin.incrementalAlterConfigs(Map.of(topic, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", null),
            AlterConfigOp.OpType.DELETE)))).all());
        eventually(() -> describe(topic).get("retention.ms").source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG,
            "retention.ms back to its default");
    }

    @Test
    void incrementalAlterConfigsChangesBrokerConfigs() throws Exception {
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "2");
        get(admin.incrementalAlterConfigs(Map.of(broker, List.of(set("log.retention.ms", "7200000")))).all());
        awaitConfig(broker, "log.retention.ms", "7200000", ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
        ConfigResource clusterDefault = new ConfigResource(ConfigResource.Type.BROKER, "");
        get(admin.incrementalAlterConfigs(Map.of(clusterDefault, List.of(set("log.retention.ms", "7300000")))).all());
        awaitConfig(new ConfigResource(ConfigResource.Type.BROKER, "3"), "log.retention.ms", "7300000",
            ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
        // broker 2's own value wins over the cluster default
        awaitConfig(broker, "log.retention.ms", "7200000", ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);

        assertThat(failure(() -> get(admin.incrementalAlterConfigs(Map.of(clusterDefault,
            List.of(set("log.retention.ms", "-7")))).all()))).isInstanceOf(InvalidConfigurationException.class);
        // a broker that does not exist (the Admin would wait for it to appear): straight to a broker
        IncrementalAlterConfigsRequestData unknownBroker = new IncrementalAlterConfigsRequestData();
        IncrementalAlterConfigsRequestData.AlterConfigsResource b42 = new IncrementalAlterConfigsRequestData.AlterConfigsResource()
            .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName("42");
        b42.configs().add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("log.retention.ms")
            .setConfigOperation(AlterConfigOp.OpType.SET.id()).setValue("1"));
        unknownBroker.resources().add(b42);
        IncrementalAlterConfigsResponse r = (IncrementalAlterConfigsResponse) KafkaWire.send(cluster.nodes().get(0).kafkaPort(),
            new IncrementalAlterConfigsRequest.Builder(unknownBroker).build((short) 1));
        assertThat(Errors.forCode(r.data().responses().get(0).errorCode())).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(r.data().responses().get(0).errorMessage()).contains("unknown broker '42'");
        assertThat(failure(() -> get(admin.incrementalAlterConfigs(Map.of(broker, List.of(set("num.io.threads", "4")))).all())))
            .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("not a dynamic broker config");
        assertThat(describe(broker).get("log.retention.ms").value()).isEqualTo("7200000");

        for (ConfigResource each : List.of(broker, clusterDefault)) {
            get(admin.incrementalAlterConfigs(Map.of(each, List.of(new AlterConfigOp(new ConfigEntry("log.retention.ms", null),
                AlterConfigOp.OpType.DELETE)))).all());
        }
        eventually(() -> {
            ConfigEntry e = describe(broker).get("log.retention.ms"); // listed only where set: dynamically or in the file
            return e == null || e.source() == ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG;
        }, "log.retention.ms no longer set dynamically");
    }

    private static AlterConfigOp op(String name, String value, AlterConfigOp.OpType type) {
        return new AlterConfigOp(new ConfigEntry(name, value), type);
    }

    /** A config as the Raftline SDK reads it over gRPC (from whichever broker it asks). */
    private static String overGrpc(io.raftline.client.admin.ConfigResource.Type type, String name, String key) throws Exception {
        io.raftline.client.admin.ConfigResource ours = new io.raftline.client.admin.ConfigResource(type, name);
        return cluster.admin().describeConfigs(List.of(ours)).all().get(30, TimeUnit.SECONDS).get(ours).entries().stream()
            .filter(e -> e.name().equals(key)).map(io.raftline.client.admin.ConfigEntry::value).findFirst().orElse(null);
    }

    @Test
    void incrementalAlterConfigsAppendsToAndSubtractsFromListConfigs() throws Exception {
        createTopic("cfg-lists", 1);
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "cfg-lists");
        // APPEND to the default (delete), and to a list not set yet; a value already there is not added twice
        get(admin.incrementalAlterConfigs(Map.of(topic, List.of(op("cleanup.policy", "compact", AlterConfigOp.OpType.APPEND),
            op("leader.replication.throttled.replicas", "0:1,0:2", AlterConfigOp.OpType.APPEND)))).all());
        awaitConfig(topic, "cleanup.policy", "delete,compact", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        get(admin.incrementalAlterConfigs(Map.of(topic, List.of(
            op("leader.replication.throttled.replicas", "0:2,0:3", AlterConfigOp.OpType.APPEND)))).all());
        awaitConfig(topic, "leader.replication.throttled.replicas", "0:1,0:2,0:3", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        eventually(() -> "delete,compact".equals(overGrpc(io.raftline.client.admin.ConfigResource.Type.TOPIC, "cfg-lists",
            "cleanup.policy")), "cleanup.policy=delete,compact over gRPC");

        // SUBTRACT what is there; a value that is not there is ignored
        get(admin.incrementalAlterConfigs(Map.of(topic, List.of(op("cleanup.policy", "delete", AlterConfigOp.OpType.SUBTRACT),
            op("leader.replication.throttled.replicas", "0:1,0:9", AlterConfigOp.OpType.SUBTRACT)))).all());
        awaitConfig(topic, "cleanup.policy", "compact", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        awaitConfig(topic, "leader.replication.throttled.replicas", "0:2,0:3", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        eventually(() -> "0:2,0:3".equals(overGrpc(io.raftline.client.admin.ConfigResource.Type.TOPIC, "cfg-lists",
            "leader.replication.throttled.replicas")), "the throttled replicas over gRPC");

        // refusals change nothing: APPEND to a config that is not a list (beside a good APPEND), a SUBTRACT that
        // leaves cleanup.policy empty
        assertThat(failure(() -> get(admin.incrementalAlterConfigs(Map.of(topic, List.of(
            op("cleanup.policy", "delete", AlterConfigOp.OpType.APPEND),
            op("max.message.bytes", "5", AlterConfigOp.OpType.APPEND)))).all())))
            .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("max.message.bytes");
        assertThat(failure(() -> get(admin.incrementalAlterConfigs(Map.of(topic, List.of(
            op("cleanup.policy", "compact", AlterConfigOp.OpType.SUBTRACT)))).all())))
            .isInstanceOf(InvalidConfigurationException.class);
        Config now = describe(topic);
        assertThat(now.get("cleanup.policy").value()).isEqualTo("compact");
        assertThat(now.get("leader.replication.throttled.replicas").value()).isEqualTo("0:2,0:3");

        // a broker's list config: APPEND to the cluster-wide default, then SUBTRACT back
        ConfigResource clusterDefault = new ConfigResource(ConfigResource.Type.BROKER, "");
        get(admin.incrementalAlterConfigs(Map.of(clusterDefault, List.of(
            op("log.cleanup.policy", "compact", AlterConfigOp.OpType.APPEND)))).all());
        awaitConfig(new ConfigResource(ConfigResource.Type.BROKER, "1"), "log.cleanup.policy", "delete,compact",
            ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
        assertThat(failure(() -> get(admin.incrementalAlterConfigs(Map.of(clusterDefault, List.of(
            op("log.retention.ms", "5", AlterConfigOp.OpType.SUBTRACT)))).all())))
            .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("log.retention.ms");
        get(admin.incrementalAlterConfigs(Map.of(clusterDefault, List.of(
            op("log.cleanup.policy", "compact", AlterConfigOp.OpType.SUBTRACT)))).all());
        awaitConfig(new ConfigResource(ConfigResource.Type.BROKER, "1"), "log.cleanup.policy", "delete",
            ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
        get(admin.incrementalAlterConfigs(Map.of(clusterDefault, List.of(
            op("log.cleanup.policy", null, AlterConfigOp.OpType.DELETE)))).all());
    }

    /** The legacy AlterConfigs (Admin 4.x no longer sends it; librdkafka's alter_configs does): the set is replaced. */
    @Test
    void legacyAlterConfigsReplacesTheTopicsWholeConfigSet() throws Exception {
        ConfigResource topic = topicWithTwoConfigs("cfg-legacy");
        int port = cluster.nodes().get(0).kafkaPort();

        AlterConfigsResponse refused = (AlterConfigsResponse) KafkaWire.send(port, new AlterConfigsRequest.Builder(Map.of(topic,
            new AlterConfigsRequest.Config(List.of(new AlterConfigsRequest.ConfigEntry("retention.ms", "never")))), false)
            .build((short) 2));
        assertThat(refused.errors().get(topic).error()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(describe(topic).get("max.message.bytes").value()).isEqualTo("2000000");

        AlterConfigsResponse ok = (AlterConfigsResponse) KafkaWire.send(port, new AlterConfigsRequest.Builder(Map.of(topic,
            new AlterConfigsRequest.Config(List.of(new AlterConfigsRequest.ConfigEntry("cleanup.policy", "compact")))), false)
            .build((short) 0));
        assertThat(ok.errors().get(topic).error()).isEqualTo(Errors.NONE);
        awaitConfig(topic, "cleanup.policy", "compact", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        eventually(() -> {
            Config c = describe(topic);
            return c.get("retention.ms").source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG
                && c.get("max.message.bytes").source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG;
        }, "the configs not named went back to their defaults");
    }

    // ---------------------------------------------------------------------------------------------------------
    // CreatePartitions

    @Test
    void createPartitionsAddsPartitionsThatTakeRecords() throws Exception {
        createTopic("grow", 1);
        get(admin.createPartitions(Map.of("grow", NewPartitions.increaseTo(3))).all());
        awaitDescribed("grow", d -> d.partitions().size() == 3 && d.partitions().stream().allMatch(p -> p.leader() != null),
            "3 partitions, each led");
        // the same count over gRPC
        eventually(() -> cluster.admin().describeTopics(List.of("grow")).allTopicNames().get(30, TimeUnit.SECONDS).get("grow")
            .partitions().size() == 3, "3 partitions over gRPC");
        produce("grow", 2, 5, "p2-");
        try (KafkaConsumer<String, String> consumer = consumer(null)) {
            consumer.assign(List.of(new TopicPartition("grow", 2)));
            assertThat(poll(consumer, 5)).extracting(ConsumerRecord::value).containsExactly("p2-0", "p2-1", "p2-2", "p2-3", "p2-4");
        }

        assertThat(failure(() -> get(admin.createPartitions(Map.of("grow", NewPartitions.increaseTo(2))).all())))
            .isInstanceOf(InvalidPartitionsException.class);
        assertThat(failure(() -> get(admin.createPartitions(Map.of("no-such-topic", NewPartitions.increaseTo(2))).all())))
            .isInstanceOf(UnknownTopicOrPartitionException.class);
        assertThat(failure(() -> get(admin.createPartitions(Map.of("grow",
            NewPartitions.increaseTo(4, List.of(List.of(1, 2, 3))))).all())))
            .isInstanceOf(InvalidReplicaAssignmentException.class);
        get(admin.createPartitions(Map.of("grow", NewPartitions.increaseTo(6)), new CreatePartitionsOptions().validateOnly(true)).all());
        assertThat(get(admin.describeTopics(List.of("grow")).allTopicNames()).get("grow").partitions()).hasSize(3);
    }

    // ---------------------------------------------------------------------------------------------------------
    // DeleteRecords

    @Test
    void deleteRecordsMovesTheLowWatermarkAndConsumersStartThere() throws Exception {
        createTopic("trim", 1);
        produce("trim", 0, 100, "v");
        TopicPartition tp = new TopicPartition("trim", 0);
        assertThat(get(admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(40))).lowWatermarks().get(tp))
            .lowWatermark()).isEqualTo(40);
        assertThat(get(admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).all()).get(tp).offset()).isEqualTo(40);
        try (KafkaConsumer<String, String> consumer = consumer(null)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<ConsumerRecord<String, String>> read = poll(consumer, 60);
            assertThat(read.get(0).offset()).isEqualTo(40);
            assertThat(read.get(0).value()).isEqualTo("v40");
        }

        assertThat(failure(() -> get(admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(1000))).all())))
            .isInstanceOf(OffsetOutOfRangeException.class);
        // a partition the topic does not have, and a topic that does not exist (the Admin would look for their
        // leaders until it times out, as against Kafka): straight to a broker
        DeleteRecordsRequestData unknown = new DeleteRecordsRequestData().setTimeoutMs(5000);
        unknown.topics().add(new DeleteRecordsRequestData.DeleteRecordsTopic().setName("trim").setPartitions(List.of(
            new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(7).setOffset(1))));
        unknown.topics().add(new DeleteRecordsRequestData.DeleteRecordsTopic().setName("no-such-topic").setPartitions(List.of(
            new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0).setOffset(1))));
        DeleteRecordsResponse r = (DeleteRecordsResponse) KafkaWire.send(cluster.nodes().get(0).kafkaPort(),
            new DeleteRecordsRequest.Builder(unknown).build((short) 2));
        assertThat(Errors.forCode(r.data().topics().find("trim").partitions().find(7).errorCode()))
            .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(Errors.forCode(r.data().topics().find("no-such-topic").partitions().find(0).errorCode()))
            .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(get(admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).all()).get(tp).offset()).isEqualTo(40);
    }

    // ---------------------------------------------------------------------------------------------------------
    // DeleteGroups

    @Test
    void deleteGroupsDeletesAnEmptyGroupAndItsOffsetsButNotAnActiveOne() throws Exception {
        createTopic("grouped", 1);
        produce("grouped", 0, 10, "g");
        TopicPartition tp = new TopicPartition("grouped", 0);
        try (KafkaConsumer<String, String> consumer = consumer("doomed")) {
            consumer.subscribe(List.of("grouped"));
            poll(consumer, 10);
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(10)));
            assertThat(failure(() -> get(admin.deleteConsumerGroups(List.of("doomed")).all())))
                .isInstanceOf(GroupNotEmptyException.class);
            assertThat(get(admin.listConsumerGroupOffsets("doomed").partitionsToOffsetAndMetadata()).get(tp).offset())
                .isEqualTo(10);
        }
        get(admin.deleteConsumerGroups(List.of("doomed")).all());
        assertThat(get(admin.listConsumerGroupOffsets("doomed").partitionsToOffsetAndMetadata())).isEmpty();
        assertThat(get(admin.listGroups().all())).noneMatch(g -> g.groupId().equals("doomed"));
        // over gRPC too
        assertThat(cluster.admin().listConsumerGroups().get(30, TimeUnit.SECONDS)).noneMatch(g -> g.groupId().equals("doomed"));
        assertThat(failure(() -> get(admin.deleteConsumerGroups(List.of("doomed")).all())))
            .isInstanceOf(GroupIdNotFoundException.class);
    }

    // ---------------------------------------------------------------------------------------------------------
    // OffsetDelete

    private static Map<TopicPartition, Long> committed(String group) throws Exception {
        Map<TopicPartition, Long> out = new HashMap<>();
        get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()).forEach((tp, o) -> out.put(tp, o.offset()));
        return out;
    }

    @Test
    void deleteConsumerGroupOffsetsDeletesUnsubscribedTopicsOffsetsDurablyAndRefusesSubscribedOnes() throws Exception {
        createTopic("od-read", 2);
        createTopic("od-done", 2);
        String group = "od-group";
        TopicPartition read0 = new TopicPartition("od-read", 0);
        TopicPartition read1 = new TopicPartition("od-read", 1);
        TopicPartition done0 = new TopicPartition("od-done", 0);
        TopicPartition done1 = new TopicPartition("od-done", 1);
        try (KafkaConsumer<String, String> consumer = consumer(group)) {
            consumer.subscribe(List.of("od-read"));
            TestCluster.await(() -> {
                consumer.poll(Duration.ofMillis(200));
                return consumer.assignment().size() == 2;
            }, AdminCalls.WAIT, "the consumer holds od-read's partitions");
            consumer.commitSync(Map.of(read0, new OffsetAndMetadata(3), read1, new OffsetAndMetadata(4),
                done0, new OffsetAndMetadata(5), done1, new OffsetAndMetadata(6)));

            // the group is active and subscribed to od-read: refused, nothing deleted
            assertThat(failure(() -> get(admin.deleteConsumerGroupOffsets(group, Set.of(read0)).all())))
                .isInstanceOf(GroupSubscribedToTopicException.class);
            assertThat(committed(group)).isEqualTo(Map.of(read0, 3L, read1, 4L, done0, 5L, done1, 6L));
            // a topic it does not read: deleted while it is active; one request with both: each partition on its own
            get(admin.deleteConsumerGroupOffsets(group, Set.of(done0)).all());
            DeleteConsumerGroupOffsetsResult mixed = admin.deleteConsumerGroupOffsets(group, Set.of(read1, done1));
            assertThat(failure(() -> get(mixed.partitionResult(read1)))).isInstanceOf(GroupSubscribedToTopicException.class);
            get(mixed.partitionResult(done1));
            assertThat(committed(group)).isEqualTo(Map.of(read0, 3L, read1, 4L));
        }
        // empty now: any topic's offsets may go
        get(admin.deleteConsumerGroupOffsets(group, Set.of(read0)).all());
        assertThat(committed(group)).isEqualTo(Map.of(read1, 4L));
        assertThat(failure(() -> get(admin.deleteConsumerGroupOffsets("no-such-group", Set.of(read0)).all())))
            .isInstanceOf(GroupIdNotFoundException.class);

        // durable: the coordinator stops, the next one reads the group from __consumer_offsets without the deleted ones
        int coordinatorId = get(admin.describeConsumerGroups(List.of(group)).all()).get(group).coordinator().id();
        TestNode coordinator = cluster.node(coordinatorId);
        coordinator.stop(Duration.ofSeconds(30));
        try {
            eventually(() -> get(admin.describeConsumerGroups(List.of(group)).all()).get(group).coordinator().id() != coordinatorId,
                "another coordinator");
            eventually(() -> committed(group).equals(Map.of(read1, 4L)), "only od-read-1's offset, from the new coordinator");
            com.fasterxml.jackson.databind.JsonNode described = new io.raftline.tests.cluster.Cli(cluster.bootstrap())
                .json("groups", "describe", "--group", group);
            assertThat(described.get("offsets")).hasSize(1);
            assertThat(described.get("offsets").get(0).get("topic").asText()).isEqualTo("od-read");
            assertThat(described.get("offsets").get(0).get("partition").asInt()).isEqualTo(1);
            assertThat(described.get("offsets").get(0).get("committed").asLong()).isEqualTo(4);
        } finally {
            // the other tests share this cluster: wait until the broker is back and unfenced (registered is not
            // enough: a topic of replication factor 3 made at once was refused with "2 available brokers")
            coordinator.start();
            cluster.awaitReady(Duration.ofSeconds(60));
            eventually(() -> get(admin.describeCluster().nodes()).size() == 3, "broker " + coordinatorId + " back");
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // DescribeProducers

    private static KafkaProducer<String, String> idempotentProducer() {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        p.setProperty("acks", "all");
        p.setProperty("enable.idempotence", "true");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    @Test
    void describeProducersShowsEachIdempotentProducersLastSequenceFromTheLeader() throws Exception {
        createTopic("producers", 2);
        TopicPartition tp = new TopicPartition("producers", 1);
        long before = io.raftline.common.SystemTime.INSTANCE.milliseconds();
        try (KafkaProducer<String, String> first = idempotentProducer(); KafkaProducer<String, String> second = idempotentProducer()) {
            for (int i = 0; i < 7; i++) {
                first.send(new ProducerRecord<>("producers", 1, "k" + i, "a" + i)).get(30, TimeUnit.SECONDS);
            }
            for (int i = 0; i < 3; i++) {
                second.send(new ProducerRecord<>("producers", 1, "k" + i, "b" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        long after = io.raftline.common.SystemTime.INSTANCE.milliseconds();
        List<ProducerState> active = get(admin.describeProducers(List.of(tp)).partitionResult(tp)).activeProducers();
        // two producers: 7 records (sequences 0-6) and 3 (0-2), each with its own id, epoch 0, no transaction
        assertThat(active).hasSize(2);
        assertThat(active).extracting(ProducerState::lastSequence).containsExactlyInAnyOrder(6, 2);
        assertThat(active).extracting(ProducerState::producerId).doesNotHaveDuplicates().allMatch(id -> id >= 0);
        assertThat(active).allSatisfy(s -> {
            assertThat(s.producerEpoch()).isZero();
            assertThat(s.lastTimestamp()).isBetween(before, after);
            assertThat(s.coordinatorEpoch()).isEmpty();
            assertThat(s.currentTransactionStartOffset()).isEmpty();
        });
        // the other partition had none
        TopicPartition other = new TopicPartition("producers", 0);
        assertThat(get(admin.describeProducers(List.of(other)).partitionResult(other)).activeProducers()).isEmpty();

        // straight to brokers: a follower answers NOT_LEADER_OR_FOLLOWER, an unknown partition UNKNOWN_TOPIC_OR_PARTITION
        int leaderId = described("producers").partitions().get(1).leader().id();
        TestNode follower = cluster.nodes().stream().filter(n -> n.id() != leaderId).findFirst().orElseThrow();
        DescribeProducersRequestData asked = new DescribeProducersRequestData();
        asked.topics().add(new DescribeProducersRequestData.TopicRequest().setName("producers").setPartitionIndexes(List.of(1, 5)));
        asked.topics().add(new DescribeProducersRequestData.TopicRequest().setName("no-such-topic").setPartitionIndexes(List.of(0)));
        DescribeProducersResponse fromFollower = (DescribeProducersResponse) KafkaWire.send(follower.kafkaPort(),
            new DescribeProducersRequest.Builder(asked).build((short) 0));
        Map<String, Map<Integer, Errors>> errors = new HashMap<>();
        fromFollower.data().topics().forEach(t -> t.partitions().forEach(p -> errors.computeIfAbsent(t.name(), k -> new HashMap<>())
            .put(p.partitionIndex(), Errors.forCode(p.errorCode()))));
        assertThat(errors).isEqualTo(Map.of("producers", Map.of(1, Errors.NOT_LEADER_OR_FOLLOWER, 5, Errors.UNKNOWN_TOPIC_OR_PARTITION),
            "no-such-topic", Map.of(0, Errors.UNKNOWN_TOPIC_OR_PARTITION)));
    }

    // ---------------------------------------------------------------------------------------------------------
    // DescribeLogDirs

    @Test
    void describeLogDirsShowsEachReplicaInItsBrokersLogDirectory() throws Exception {
        createTopic("dirs", 2);
        produce("dirs", 0, 20, "d");
        List<Integer> brokers = cluster.nodes().stream().map(TestNode::id).toList();
        eventually(() -> {
            Map<Integer, Map<String, LogDirDescription>> all = get(admin.describeLogDirs(brokers).allDescriptions());
            for (TestNode node : cluster.nodes()) {
                Map<String, LogDirDescription> dirs = all.get(node.id());
                if (dirs == null || dirs.isEmpty()) {
                    return false;
                }
                Map<TopicPartition, Long> sizes = new HashMap<>();
                dirs.forEach((path, d) -> {
                    assertThat(path).startsWith(node.dir().toAbsolutePath().toString());
                    assertThat(d.error()).isNull();
                    assertThat(d.totalBytes()).isNotEmpty();
                    d.replicaInfos().forEach((p, info) -> sizes.put(p, info.size()));
                });
                Long size0 = sizes.get(new TopicPartition("dirs", 0));
                if (size0 == null || size0 <= 0 || !sizes.containsKey(new TopicPartition("dirs", 1))) {
                    return false;
                }
            }
            return true;
        }, "every broker's log dir holds both partitions of 'dirs', partition 0 not empty");
    }

    // ---------------------------------------------------------------------------------------------------------
    // ElectLeaders and OffsetForLeaderEpoch: a leader change under a consumer

    private static TopicDescription described(String topic) throws Exception {
        return get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
    }

    private static OffsetForLeaderEpochResponseData.EpochEndOffset epochEnd(int port, TopicPartition tp, int currentEpoch,
                                                                            int epoch) throws Exception {
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection topics =
            new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic()
            .setTopic(tp.topic());
        t.partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(tp.partition())
            .setCurrentLeaderEpoch(currentEpoch).setLeaderEpoch(epoch));
        topics.add(t);
        OffsetsForLeaderEpochResponse r = (OffsetsForLeaderEpochResponse) KafkaWire.send(port,
            OffsetsForLeaderEpochRequest.Builder.forConsumer(topics).build((short) 4));
        return r.data().topics().find(tp.topic()).partitions().get(0);
    }

    @Test
    void aConsumerReadsOnAcrossLeaderChangesAndElectLeadersRestoresThePreferredLeader() throws Exception {
        createTopic("elect", 1);
        TopicPartition tp = new TopicPartition("elect", 0);
        int preferred = described("elect").partitions().get(0).replicas().get(0).id();
        awaitDescribed("elect", d -> d.partitions().get(0).leader().id() == preferred, "led by its preferred replica");
        produce("elect", 0, 50, "a");
        TestNode leader = cluster.node(preferred);
        try (KafkaConsumer<String, String> consumer = consumer(null)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            assertThat(poll(consumer, 50)).extracting(ConsumerRecord::offset).first().isEqualTo(0L);
            assertThat(consumer.position(tp)).isEqualTo(50);

            // the preferred leader goes away: another replica leads in a new epoch
            leader.stop(Duration.ofSeconds(30));
            awaitDescribed("elect", d -> d.partitions().get(0).leader() != null && d.partitions().get(0).leader().id() != preferred,
                "a new leader");
            produce("elect", 0, 50, "b");
            // the consumer validates its position with the new leader (OffsetForLeaderEpoch) and reads on: every
            // record once, in order
            List<ConsumerRecord<String, String>> more = poll(consumer, 50);
            assertThat(more).extracting(ConsumerRecord::offset).startsWith(50L).hasSize(50);
            assertThat(more.get(0).leaderEpoch()).isPresent();
            assertThat(consumer.position(tp)).isEqualTo(100);

            leader.start();
            awaitDescribed("elect", d -> d.partitions().get(0).isr().size() == 3, "the old leader back in the ISR");
            get(admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).all());
            awaitDescribed("elect", d -> d.partitions().get(0).leader().id() == preferred, "the preferred replica leads again");
            assertThat(failure(() -> get(admin.electLeaders(ElectionType.PREFERRED, Set.of(tp)).all())))
                .isInstanceOf(ElectionNotNeededException.class);
            assertThat(failure(() -> get(admin.electLeaders(ElectionType.PREFERRED, Set.of(new TopicPartition("no-such-topic", 0)))
                .all()))).isInstanceOf(UnknownTopicOrPartitionException.class);

            produce("elect", 0, 10, "c");
            assertThat(poll(consumer, 10)).extracting(ConsumerRecord::offset).startsWith(100L).hasSize(10);
        } finally {
            if (!leader.isRunning()) {
                leader.start(); // the other tests share this cluster
            }
            cluster.awaitReady(Duration.ofSeconds(60));
        }

        // where each epoch ends, from the leader: the first epoch ends at 50, where the second leader began
        TestNode leaderNow = cluster.node(described("elect").partitions().get(0).leader().id());
        int firstEpoch;
        try (KafkaConsumer<String, String> reader = consumer(null)) {
            reader.assign(List.of(tp));
            reader.seekToBeginning(List.of(tp));
            firstEpoch = poll(reader, 110).get(0).leaderEpoch().orElseThrow();
        }
        OffsetForLeaderEpochResponseData.EpochEndOffset end = epochEnd(leaderNow.kafkaPort(), tp, -1, firstEpoch);
        assertThat(Errors.forCode(end.errorCode())).isEqualTo(Errors.NONE);
        assertThat(end.leaderEpoch()).isEqualTo(firstEpoch);
        assertThat(end.endOffset()).isEqualTo(50);
        // refusals: a stale current epoch, and a broker that does not lead the partition
        assertThat(Errors.forCode(epochEnd(leaderNow.kafkaPort(), tp, firstEpoch, firstEpoch).errorCode()))
            .isEqualTo(Errors.FENCED_LEADER_EPOCH);
        TestNode follower = cluster.nodes().stream().filter(n -> n.id() != leaderNow.id()).findFirst().orElseThrow();
        assertThat(Errors.forCode(epochEnd(follower.kafkaPort(), tp, -1, firstEpoch).errorCode()))
            .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    // ---------------------------------------------------------------------------------------------------------
    // DescribeTopicPartitions and reassignments

    @Test
    void describeTopicsPagesThroughEveryPartition() throws Exception {
        createTopic("paged", 5);
        // kafka-clients' Admin describes topics with DescribeTopicPartitions: two partitions a page, three pages
        TopicDescription d = get(admin.describeTopics(List.of("paged"),
            new org.apache.kafka.clients.admin.DescribeTopicsOptions().partitionSizeLimitPerResponse(2)).allTopicNames()).get("paged");
        assertThat(d.partitions()).extracting(org.apache.kafka.common.TopicPartitionInfo::partition).containsExactly(0, 1, 2, 3, 4);
        assertThat(d.partitions()).allMatch(p -> p.leader() != null && p.replicas().size() == 3 && p.isr().size() == 3);
        assertThat(d.topicId()).isNotNull();
        assertThat(failure(() -> get(admin.describeTopics(List.of("no-such-topic")).allTopicNames())))
            .isInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void reassignmentsMoveReplicasAndABadOneMovesNothing() throws Exception {
        get(admin.createTopics(List.of(new NewTopic("moved", 1, (short) 2))).all());
        awaitDescribed("moved", d -> d.partitions().get(0).isr().size() == 2, "ISR 2");
        TopicPartition tp = new TopicPartition("moved", 0);
        List<Integer> before = described("moved").partitions().get(0).replicas().stream().map(org.apache.kafka.common.Node::id)
            .toList();
        int outside = cluster.nodes().stream().map(TestNode::id).filter(id -> !before.contains(id)).findFirst().orElseThrow();
        List<Integer> target = List.of(outside, before.get(0));

        // refusals first: a broker that does not exist, a changed replication factor when that is not allowed
        assertThat(failure(() -> get(admin.alterPartitionReassignments(Map.of(tp, Optional.of(
            new org.apache.kafka.clients.admin.NewPartitionReassignment(List.of(42, before.get(0)))))).all())))
            .isInstanceOf(InvalidReplicaAssignmentException.class);
        assertThat(failure(() -> get(admin.alterPartitionReassignments(Map.of(tp, Optional.of(
            new org.apache.kafka.clients.admin.NewPartitionReassignment(List.of(1, 2, 3)))),
            new org.apache.kafka.clients.admin.AlterPartitionReassignmentsOptions().allowReplicationFactorChange(false)).all())))
            .isInstanceOf(org.apache.kafka.common.errors.InvalidReplicationFactorException.class);
        assertThat(failure(() -> get(admin.alterPartitionReassignments(Map.of(new TopicPartition("no-such-topic", 0), Optional.of(
            new org.apache.kafka.clients.admin.NewPartitionReassignment(target)))).all())))
            .isInstanceOf(UnknownTopicOrPartitionException.class);
        assertThat(get(admin.listPartitionReassignments().reassignments())).doesNotContainKey(tp);
        assertThat(described("moved").partitions().get(0).replicas()).extracting(org.apache.kafka.common.Node::id)
            .containsExactlyElementsOf(before);

        produce("moved", 0, 20, "m");
        get(admin.alterPartitionReassignments(Map.of(tp, Optional.of(
            new org.apache.kafka.clients.admin.NewPartitionReassignment(target)))).all());
        awaitDescribed("moved", d -> d.partitions().get(0).replicas().stream().map(org.apache.kafka.common.Node::id).toList()
            .equals(target) && d.partitions().get(0).isr().size() == 2, "replicas " + target + ", both in sync");
        eventually(() -> !get(admin.listPartitionReassignments().reassignments()).containsKey(tp),
            "no reassignment listed once it completed");
        try (KafkaConsumer<String, String> consumer = consumer(null)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            assertThat(poll(consumer, 20)).extracting(ConsumerRecord::value).startsWith("m0", "m1").hasSize(20);
        }
    }
}
