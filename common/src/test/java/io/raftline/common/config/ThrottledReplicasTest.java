package io.raftline.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ThrottledReplicasTest {

    @Test
    void parsesKafkasFormatTable() {
        Object[][] table = {
            {"", false, Map.of()},
            {"*", true, Map.of()},
            {" * ", true, Map.of()},
            {"0:1", false, Map.of(0, Set.of(1))},
            {"0:1,0:2, 3:1", false, Map.of(0, Set.of(1, 2), 3, Set.of(1))},
        };
        for (Object[] row : table) {
            ThrottledReplicas r = ThrottledReplicas.parse((String) row[0]);
            assertThat(r.all()).as((String) row[0]).isEqualTo(row[1]);
            assertThat(r.replicas()).as((String) row[0]).isEqualTo(row[2]);
        }
        ThrottledReplicas r = ThrottledReplicas.parse("0:1,2:3");
        assertThat(r.contains(0, 1)).isTrue();
        assertThat(r.contains(0, 3)).isFalse();
        assertThat(ThrottledReplicas.parse("*").contains(7, 9)).isTrue();
        assertThat(ThrottledReplicas.format(Map.of(2, List.of(3), 0, List.of(1, 2)))).isEqualTo("0:1,0:2,2:3");
    }

    @Test
    void refusesWhatIsNotPartitionBrokerPairsOrAStarAlone() {
        for (String bad : new String[] {"0", "0:1:2", "a:1", "0:b", "*,0:1", "-1:2", "0:-2", "0:1,,0:2"}) {
            assertThatThrownBy(() -> ThrottledReplicas.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(TopicConfig.problem(TopicConfig.LEADER_REPLICATION_THROTTLED_REPLICAS, "0:x")).get().asString()
            .contains("'0:x' is not partition:broker");
        assertThat(TopicConfig.problem(TopicConfig.FOLLOWER_REPLICATION_THROTTLED_REPLICAS, "1:2,1:3")).isEmpty();
    }
}
