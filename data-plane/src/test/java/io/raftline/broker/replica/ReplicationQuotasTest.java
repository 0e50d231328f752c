package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.quota.Throttle;
import io.raftline.common.ManualTime;
import io.raftline.common.config.ThrottledReplicas;
import io.raftline.metadata.image.ConfigResource;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.metadata.ConfigRecord;
import io.raftline.protocol.metadata.ConfigResourceType;
import io.raftline.protocol.metadata.MetadataRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplicationQuotasTest {

    private static final String LEADER = "leader.replication.throttled.rate";
    private static final String LEADER_REPLICAS = "leader.replication.throttled.replicas";
    private static final String FOLLOWER_REPLICAS = "follower.replication.throttled.replicas";

    /** own dynamic, cluster dynamic, static, expected. */
    @Test
    void rateComesFromThisBrokerThenTheClusterDefaultThenTheFileTable() {
        Object[][] table = {
            {null, null, null, Throttle.UNLIMITED},
            {null, null, "100", 100L},
            {null, "200", "100", 200L},
            {"300", "200", "100", 300L},
            {"300", null, null, 300L},
            {"junk", "200", null, 200L},
        };
        for (Object[] row : table) {
            assertThat(ReplicationQuotas.effectiveRate(LEADER, map(row[0]), map(row[1]), map(row[2])))
                .as("%s %s %s", row[0], row[1], row[2]).isEqualTo(row[3]);
        }
    }

    private static Map<String, String> map(Object value) {
        return value == null ? Map.of() : Map.of(LEADER, (String) value);
    }

    @Test
    void aBrokerKeepsTheTopicsThatListOneOfItsReplicas() {
        Map<ConfigResource, Map<String, String>> configs = new HashMap<>();
        configs.put(ConfigResource.topic("a"), Map.of(LEADER_REPLICAS, "0:1,0:2,1:3", FOLLOWER_REPLICAS, "0:4"));
        configs.put(ConfigResource.topic("b"), Map.of(LEADER_REPLICAS, "*"));
        configs.put(ConfigResource.topic("c"), Map.of(LEADER_REPLICAS, "0:3"));
        configs.put(ConfigResource.broker("2"), Map.of(LEADER, "1000"));
        configs.put(ConfigResource.broker(""), Map.of(LEADER, "5", "follower.replication.throttled.rate", "7"));
        ReplicationQuotas.State two = ReplicationQuotas.derive(2, configs, Map.of());
        assertThat(two.leaderRate()).isEqualTo(1000);
        assertThat(two.followerRate()).isEqualTo(7);
        assertThat(two.leaderReplicas().keySet()).containsExactlyInAnyOrder("a", "b");
        assertThat(two.followerReplicas()).isEmpty();
        ReplicationQuotas.State four = ReplicationQuotas.derive(4, configs, Map.of());
        assertThat(four.leaderRate()).isEqualTo(5);
        assertThat(four.followerReplicas()).containsOnlyKeys("a");
        assertThat(four.followerReplicas().get("a")).isEqualTo(ThrottledReplicas.parse("0:4"));
    }

    private static MetadataImage image(String type, String resource, String name, String value, MetadataImage base) {
        ConfigRecord.Builder c = ConfigRecord.newBuilder().setName(name).setResourceName(resource)
            .setResourceType(type.equals("topic") ? ConfigResourceType.TOPIC : ConfigResourceType.BROKER);
        if (value != null) {
            c.setValue(value);
        }
        return MetadataDelta.replayAll(base, base.index() + 1, List.of(MetadataRecord.newBuilder().setConfig(c).build()))
            .image();
    }

    /** Dynamic configs arriving in images: listed, out-of-sync replicas are limited at once; removal lifts it. */
    @Test
    void imagesTurnTheThrottlesOnAndOff() {
        ManualTime time = new ManualTime();
        ReplicationQuotas quotas = new ReplicationQuotas(2, time, Map.of());
        TopicPartition a0 = new TopicPartition("a", 0);
        MetadataImage img = image("topic", "a", LEADER_REPLICAS, "0:2,1:3", MetadataImage.EMPTY);
        quotas.update(img);
        assertThat(quotas.leaderThrottles(a0, false)).as("listed but no rate: no limit").isFalse();
        img = image("broker", "2", LEADER, "1000", img);
        quotas.update(img);
        assertThat(quotas.leaderThrottles(a0, false)).isTrue();
        assertThat(quotas.leaderThrottles(a0, true)).as("an in-sync follower is never throttled").isFalse();
        assertThat(quotas.leaderThrottles(new TopicPartition("a", 1), false)).as("listed on broker 3 only").isFalse();
        assertThat(quotas.leaderAllowance()).isEqualTo(1000);
        quotas.recordLeader(1500);
        assertThat(quotas.leaderAllowance()).isZero();
        time.advance(600);
        assertThat(quotas.leaderAllowance()).isEqualTo(100);
        img = image("broker", "", "follower.replication.throttled.rate", "50", img);
        img = image("topic", "a", FOLLOWER_REPLICAS, "*", img);
        quotas.update(img);
        assertThat(quotas.followerThrottles(a0, false)).isTrue();
        assertThat(quotas.followerAllowance()).isEqualTo(50);
        img = image("topic", "a", LEADER_REPLICAS, null, img);
        quotas.update(img);
        assertThat(quotas.leaderThrottles(a0, false)).as("list removed").isFalse();
        img = image("broker", "", "follower.replication.throttled.rate", null, img);
        quotas.update(img);
        assertThat(quotas.followerThrottles(a0, false)).as("rate removed").isFalse();
    }
}
