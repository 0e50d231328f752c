package io.raftline.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.metadata.ConfigResourceType;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KafkaConfigOpsTest {

    private static KafkaConfigOps.Change set(String name, String value) {
        return new KafkaConfigOps.Change(name, KafkaConfigOps.SET, value);
    }

    private static KafkaConfigOps.Change op(String name, byte operation) {
        return new KafkaConfigOps.Change(name, operation, null);
    }

    /** Each op as "TYPE/resource name=value" ("name" alone: back to the default). */
    private static List<String> show(List<AlterConfigsRequest.Op> ops) {
        return ops.stream().map(o -> o.getResourceType() + "/" + o.getResourceName() + " " + o.getName()
            + (o.hasValue() ? "=" + o.getValue() : "")).toList();
    }

    @Test
    void incrementalSetsAndDeletesOnTopicsAndBrokers() throws Exception {
        assertThat(show(KafkaConfigOps.incremental(KafkaConfigOps.TOPIC, "orders",
            List.of(set("retention.ms", "1000"), op("cleanup.policy", KafkaConfigOps.DELETE)))))
            .containsExactly("TOPIC/orders retention.ms=1000", "TOPIC/orders cleanup.policy");
        assertThat(show(KafkaConfigOps.incremental(KafkaConfigOps.BROKER, "",
            List.of(set("log.retention.ms", "5")))))
            .containsExactly("BROKER/ log.retention.ms=5");
    }

    @Test
    void appendAndSubtractGoToTheControllerAsListOperations() throws Exception {
        List<AlterConfigsRequest.Op> ops = KafkaConfigOps.incremental(KafkaConfigOps.TOPIC, "orders", List.of(
            new KafkaConfigOps.Change("cleanup.policy", KafkaConfigOps.APPEND, "compact"),
            new KafkaConfigOps.Change("leader.replication.throttled.replicas", KafkaConfigOps.SUBTRACT, "0:1,0:2")));
        assertThat(ops).extracting(AlterConfigsRequest.Op::getKind)
            .containsExactly(AlterConfigsRequest.Op.Kind.APPEND, AlterConfigsRequest.Op.Kind.SUBTRACT);
        assertThat(show(ops)).containsExactly("TOPIC/orders cleanup.policy=compact",
            "TOPIC/orders leader.replication.throttled.replicas=0:1,0:2");
        assertThat(KafkaConfigOps.incremental(KafkaConfigOps.TOPIC, "orders", List.of(set("retention.ms", "1"))).get(0).getKind())
            .isEqualTo(AlterConfigsRequest.Op.Kind.SET);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // type | op | value | refusal
        "2 | 9 | a | unknown config operation 9 for 'x'",
        "2 | 0 |   | SET of config 'x' has no value",
        "1 | 0 | a | config resource type 1 is not served: only topics (2) and brokers (4)",
        "8 | 0 | a | config resource type 8 is not served: only topics (2) and brokers (4)",
    })
    void refusesWhatItCannotTranslate(byte type, byte operation, String value, String refusal) {
        assertThatThrownBy(() -> KafkaConfigOps.incremental(type, "r", List.of(new KafkaConfigOps.Change("x", operation, value))))
            .isInstanceOf(KafkaRefusal.class).hasMessage(refusal);
    }

    @Test
    void aConfigNamedTwiceIsRefused() {
        assertThatThrownBy(() -> KafkaConfigOps.incremental(KafkaConfigOps.TOPIC, "t",
            List.of(set("retention.ms", "1"), op("retention.ms", KafkaConfigOps.DELETE))))
            .hasMessage("config 'retention.ms' is named twice");
    }

    @Test
    void legacyAlterReplacesTheWholeSetDeletingWhatIsNotNamed() throws Exception {
        Map<String, String> current = Map.of("retention.ms", "1", "segment.bytes", "2", "cleanup.policy", "compact");
        assertThat(show(KafkaConfigOps.replaceAll(KafkaConfigOps.TOPIC, "t",
            List.of(set("retention.ms", "9"), set("max.message.bytes", "3")), current)))
            .containsExactly("TOPIC/t retention.ms=9", "TOPIC/t max.message.bytes=3",
                "TOPIC/t cleanup.policy", "TOPIC/t segment.bytes");
        // nothing named: every config goes back to its default; a null value deletes
        assertThat(show(KafkaConfigOps.replaceAll(KafkaConfigOps.TOPIC, "t", List.of(set("retention.ms", null)), current)))
            .containsExactly("TOPIC/t retention.ms", "TOPIC/t cleanup.policy", "TOPIC/t segment.bytes");
        assertThat(KafkaConfigOps.replaceAll(KafkaConfigOps.BROKER, "1", List.of(), Map.of())).isEmpty();
    }

    @Test
    void resourceTypesMatchKafkasIds() throws Exception {
        assertThat(KafkaConfigOps.resourceType(org.apache.kafka.common.config.ConfigResource.Type.TOPIC.id()))
            .isEqualTo(ConfigResourceType.TOPIC);
        assertThat(KafkaConfigOps.resourceType(org.apache.kafka.common.config.ConfigResource.Type.BROKER.id()))
            .isEqualTo(ConfigResourceType.BROKER);
        assertThat(org.apache.kafka.clients.admin.AlterConfigOp.OpType.APPEND.id()).isEqualTo(KafkaConfigOps.APPEND);
        assertThat(org.apache.kafka.clients.admin.AlterConfigOp.OpType.SUBTRACT.id()).isEqualTo(KafkaConfigOps.SUBTRACT);
        assertThat(org.apache.kafka.clients.admin.AlterConfigOp.OpType.DELETE.id()).isEqualTo(KafkaConfigOps.DELETE);
    }

    @Test
    void everyAdvertisedRangeIsOneKafkaClientsCanParse() {
        SupportedApis.ranges().forEach((key, r) -> {
            assertThat(r[0]).as(key + " min").isGreaterThanOrEqualTo(key.oldestVersion());
            assertThat(r[1]).as(key + " max").isLessThanOrEqualTo(key.latestVersion(false)).isGreaterThanOrEqualTo(r[0]);
        });
        assertThat(SupportedApis.supports(ApiKeys.OFFSET_FOR_LEADER_EPOCH, (short) 3)).isTrue();
        assertThat(SupportedApis.supports(ApiKeys.OFFSET_DELETE, (short) 0)).isTrue();
        assertThat(SupportedApis.supports(ApiKeys.DESCRIBE_PRODUCERS, (short) 0)).isTrue();
        assertThat(SupportedApis.supports(ApiKeys.END_TXN, (short) 0)).isFalse();
    }
}
