package io.raftline.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.metadata.image.ConfigResource;
import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.acl.AclFilter;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.PatternType;
import io.raftline.protocol.acl.Permission;
import io.raftline.protocol.acl.ResourceType;
import io.raftline.protocol.metadata.ConfigResourceType;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The ACL enum table both ways, and client-quota entities, of the Kafka listener's security APIs. */
class KafkaAclTranslationTest {

    @ParameterizedTest
    @CsvSource({
        "TOPIC, TOPIC", "GROUP, GROUP", "CLUSTER, CLUSTER", "TRANSACTIONAL_ID, TRANSACTIONAL_ID",
    })
    void resourceTypesRoundTrip(org.apache.kafka.common.resource.ResourceType kafka, ResourceType ours) throws Exception {
        assertThat(KafkaAclTranslation.resourceType(kafka.code(), false)).isEqualTo(ours);
        assertThat(KafkaAclTranslation.resourceType(ours)).isEqualTo(kafka.code());
    }

    @Test
    void everyRaftlineOperationHasAKafkaTwinAndBack() throws Exception {
        for (Operation ours : Operation.values()) {
            if (ours == Operation.OPERATION_UNSPECIFIED || ours == Operation.UNRECOGNIZED) {
                continue;
            }
            byte kafka = KafkaAclTranslation.operation(ours);
            assertThat(AclOperation.fromCode(kafka).name()).isEqualTo(ours.name());
            assertThat(KafkaAclTranslation.operation(kafka, false)).isEqualTo(ours);
        }
        assertThat(KafkaAclTranslation.permission(AclPermissionType.ALLOW.code(), false)).isEqualTo(Permission.ALLOW);
        assertThat(KafkaAclTranslation.permission(Permission.DENY)).isEqualTo(AclPermissionType.DENY.code());
        assertThat(KafkaAclTranslation.patternType(org.apache.kafka.common.resource.PatternType.PREFIXED.code(), false))
            .isEqualTo(PatternType.PREFIXED);
    }

    @Test
    void anyMatchesOnlyInAFilterAndWhatRaftlineLacksIsRefused() throws Exception {
        AclFilter any = KafkaAclTranslation.filter(org.apache.kafka.common.resource.ResourceType.ANY.code(), null,
            org.apache.kafka.common.resource.PatternType.ANY.code(), null, null, AclOperation.ANY.code(),
            AclPermissionType.ANY.code());
        assertThat(any).isEqualTo(AclFilter.getDefaultInstance());
        assertThatThrownBy(() -> KafkaAclTranslation.binding(org.apache.kafka.common.resource.ResourceType.TOPIC.code(), "t",
            org.apache.kafka.common.resource.PatternType.LITERAL.code(), "User:a", "*", AclOperation.ANY.code(),
            AclPermissionType.ALLOW.code())).isInstanceOf(KafkaRefusal.class).hasMessageContaining("operation ANY");
        assertThatThrownBy(() -> KafkaAclTranslation.filter(org.apache.kafka.common.resource.ResourceType.TOPIC.code(), "t",
            org.apache.kafka.common.resource.PatternType.MATCH.code(), null, null, AclOperation.ANY.code(),
            AclPermissionType.ANY.code())).hasMessageContaining("pattern type 2 is not served");
        assertThatThrownBy(() -> KafkaAclTranslation.binding(org.apache.kafka.common.resource.ResourceType.DELEGATION_TOKEN.code(),
            "t", org.apache.kafka.common.resource.PatternType.LITERAL.code(), "User:a", "*", AclOperation.READ.code(),
            AclPermissionType.ALLOW.code())).hasMessageContaining("resource type 6");
        assertThatThrownBy(() -> KafkaAclTranslation.binding(org.apache.kafka.common.resource.ResourceType.TOPIC.code(), "t",
            org.apache.kafka.common.resource.PatternType.LITERAL.code(), "User:a", "*", AclOperation.TWO_PHASE_COMMIT.code(),
            AclPermissionType.ALLOW.code())).hasMessageContaining("ACL operation 15");
        AclBinding b = KafkaAclTranslation.binding(org.apache.kafka.common.resource.ResourceType.GROUP.code(), "g",
            org.apache.kafka.common.resource.PatternType.PREFIXED.code(), "User:a", "10.0.0.1", AclOperation.READ.code(),
            AclPermissionType.DENY.code());
        assertThat(b).isEqualTo(AclBinding.newBuilder().setResourceType(ResourceType.GROUP).setResourceName("g")
            .setPatternType(PatternType.PREFIXED).setPrincipal("User:a").setHost("10.0.0.1").setOperation(Operation.READ)
            .setPermission(Permission.DENY).build());
    }

    private static final ConfigResource ALICE = new ConfigResource(ConfigResourceType.USER, "alice");
    private static final ConfigResource ANY_USER = new ConfigResource(ConfigResourceType.USER, "<default>");
    private static final ConfigResource APP = new ConfigResource(ConfigResourceType.CLIENT, "app");

    private static KafkaQuotaEntities.Component c(String type, int matchType, String match) {
        return new KafkaQuotaEntities.Component(type, (byte) matchType, match);
    }

    @Test
    void quotaFiltersMatchAsKafkasDo() {
        List<KafkaQuotaEntities.Component> none = List.of();
        assertThat(KafkaQuotaEntities.matches(ALICE, none, false)).isTrue();
        assertThat(KafkaQuotaEntities.matches(ALICE, none, true)).isFalse();
        assertThat(KafkaQuotaEntities.matches(ConfigResource.topic("t"), none, false)).isFalse();
        assertThat(KafkaQuotaEntities.matches(ALICE, List.of(c("user", 0, "alice")), true)).isTrue();
        assertThat(KafkaQuotaEntities.matches(ALICE, List.of(c("user", 0, "bob")), false)).isFalse();
        assertThat(KafkaQuotaEntities.matches(ANY_USER, List.of(c("user", 1, null)), false)).isTrue();
        assertThat(KafkaQuotaEntities.matches(ALICE, List.of(c("user", 1, null)), false)).isFalse();
        assertThat(KafkaQuotaEntities.matches(ALICE, List.of(c("user", 2, null)), false)).isTrue();
        assertThat(KafkaQuotaEntities.matches(ANY_USER, List.of(c("user", 2, null)), false)).isFalse();
        assertThat(KafkaQuotaEntities.matches(APP, List.of(c("user", 2, null)), false)).isFalse();
        assertThat(KafkaQuotaEntities.matches(APP, List.of(c("client-id", 0, "app")), false)).isTrue();
        assertThat(KafkaQuotaEntities.matches(ALICE, List.of(c("user", 0, "alice"), c("client-id", 2, null)), false)).isFalse();
        assertThat(KafkaQuotaEntities.entityName(ANY_USER)).isNull();
    }

    @Test
    void quotaEntitiesAreOneUserOrOneClientId() throws Exception {
        assertThat(KafkaQuotaEntities.resource(List.of(Map.entry("user", "alice")))).isEqualTo(ALICE);
        assertThat(KafkaQuotaEntities.resource(List.of(Map.entry("client-id", "app")))).isEqualTo(APP);
        assertThatThrownBy(() -> KafkaQuotaEntities.resource(List.of(Map.entry("user", "a"), Map.entry("client-id", "b"))))
            .hasMessageContaining("one user or one client id");
        assertThatThrownBy(() -> KafkaQuotaEntities.resource(List.of(Map.entry("ip", "10.0.0.1"))))
            .hasMessageContaining("'ip' is not served");
        assertThat(KafkaQuotaEntities.value(1048576.0)).isEqualTo("1048576");
        assertThat(KafkaQuotaEntities.value(12.5)).isEqualTo("12.5");
    }
}
