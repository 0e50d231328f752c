package io.raftline.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.common.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReassignmentThrottlesTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);

    @Test
    void leadersAreTheCurrentReplicasFollowersTheNewOnesOfMovingPartitionsOnly() {
        Map<TopicPartition, List<Integer>> current = Map.of(A0, List.of(1, 2), A1, List.of(2, 3), B0, List.of(3));
        Map<TopicPartition, List<Integer>> target = Map.of(A0, List.of(1, 4), A1, List.of(3, 2), B0, List.of(5));
        ReassignmentThrottles t = ReassignmentThrottles.of(current, target);
        assertThat(t.brokers()).containsExactly(1, 2, 3, 4, 5);
        assertThat(t.leaders()).isEqualTo(Map.of("a", Map.of(0, Set.of(1, 2)), "b", Map.of(0, Set.of(3))));
        assertThat(t.followers()).isEqualTo(Map.of("a", Map.of(0, Set.of(4)), "b", Map.of(0, Set.of(5))));
        assertThat(ReassignmentThrottles.of(current, Map.of(A1, List.of(3, 2))).brokers())
            .as("a reorder moves no data: nothing throttled").isEmpty();
    }

    @Test
    void mergeTable() {
        Object[][] table = {
            {null, Map.of(0, Set.of(1, 2)), "0:1,0:2"},
            {"", Map.of(1, Set.of(3)), "1:3"},
            {"0:1", Map.of(0, Set.of(1, 2), 2, Set.of(4)), "0:1,0:2,2:4"},
            {"*", Map.of(0, Set.of(1)), "*"},
            {"3:1", Map.of(), "3:1"},
        };
        for (Object[] row : table) {
            @SuppressWarnings("unchecked")
            Map<Integer, Set<Integer>> pairs = (Map<Integer, Set<Integer>>) row[1];
            assertThat(ReassignmentThrottles.merge((String) row[0], pairs)).as(String.valueOf(row[0])).isEqualTo(row[2]);
        }
    }
}
