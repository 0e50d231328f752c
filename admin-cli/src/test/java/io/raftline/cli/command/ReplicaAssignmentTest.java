package io.raftline.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReplicaAssignmentTest {

    @Test
    void parsesKafkasSyntaxOneGroupPerPartition() {
        assertThat(ReplicaAssignment.parse("1:2:3,2:3:1")).containsExactly(List.of(1, 2, 3), List.of(2, 3, 1));
        assertThat(ReplicaAssignment.parse("3")).containsExactly(List.of(3));
        assertThat(ReplicaAssignment.parse(" 1 : 2 , 2 : 1 ")).containsExactly(List.of(1, 2), List.of(2, 1));
        assertThat(ReplicaAssignment.byPartition(ReplicaAssignment.parse("1:2,2:3")))
            .isEqualTo(Map.of(0, List.of(1, 2), 1, List.of(2, 3)));
    }

    @Test
    void refusesWhatDoesNotParse() {
        for (String bad : new String[] {"", " ", "1:x", "1,,2", "1:2,", ":1", "1;2"}) {
            assertThatThrownBy(() -> ReplicaAssignment.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--replica-assignment");
        }
    }

    @Test
    void checksDistinctIdsEqualLengthsAndRegisteredBrokers() {
        Set<Integer> brokers = Set.of(1, 2, 3);
        Object[][] table = {
            {"1:2:3,2:3:1", null},
            {"1", null},
            {"1:1", "partition 0 lists a broker twice: 1:1"},
            {"1:2,3:3", "partition 1 lists a broker twice: 3:3"},
            {"1:2,3", "partition 1 has 1 replica(s) but partition 0 has 2"},
            {"1,2:3", "partition 1 has 2 replica(s) but partition 0 has 1"},
            {"1:4", "partition 0 names broker 4, which is not registered (brokers: 1,2,3)"},
        };
        for (Object[] row : table) {
            Optional<String> why = ReplicaAssignment.check(ReplicaAssignment.parse((String) row[0]), brokers);
            if (row[1] == null) {
                assertThat(why).as((String) row[0]).isEmpty();
            } else {
                assertThat(why).as((String) row[0]).hasValueSatisfying(w -> assertThat(w).contains((String) row[1]));
            }
        }
    }
}
