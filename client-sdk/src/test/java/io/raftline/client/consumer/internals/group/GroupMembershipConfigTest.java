package io.raftline.client.consumer.internals.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.client.consumer.ConsumerConfig;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor;
import io.raftline.client.errors.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupMembershipConfigTest {

    private static ConsumerConfig config(Map<String, Object> extra) {
        Map<String, Object> props = new java.util.HashMap<>(Map.of("bootstrap.servers", "127.0.0.1:9092", "group.id", "g"));
        props.putAll(extra);
        return new ConsumerConfig(props);
    }

    @Test
    void kafkaDefaultsAndAssignorsInOrder() {
        ConsumerConfig c = config(Map.of());
        GroupMembershipConfig g = GroupMembershipConfig.from(c);
        assertThat(g.sessionTimeoutMs()).isEqualTo(45_000);
        assertThat(g.heartbeatIntervalMs()).isEqualTo(3000);
        assertThat(g.maxPollIntervalMs()).isEqualTo(300_000);
        assertThat(GroupMembershipConfig.assignors(c)).extracting(ConsumerPartitionAssignor::name)
            .containsExactly("range", "cooperative-sticky");
    }

    @Test
    void badSettingsAreRefusedWithOneClearError() {
        assertThatThrownBy(() -> GroupMembershipConfig.assignors(config(Map.of("partition.assignment.strategy", "range,bogus"))))
            .isInstanceOf(ConfigException.class).hasMessageContaining("bogus");
        assertThatThrownBy(() -> GroupMembershipConfig.assignors(config(Map.of("partition.assignment.strategy", "sticky,sticky"))))
            .isInstanceOf(ConfigException.class).hasMessageContaining("twice");
        assertThatThrownBy(() -> GroupMembershipConfig.from(config(Map.of("heartbeat.interval.ms", 50_000))))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heartbeat.interval.ms");
        assertThatThrownBy(() -> new GroupMembershipConfig("", "c", 10_000, 3000, 1000, 1000, 100))
            .hasMessageContaining("group.id");
    }
}
