package io.raftline.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigAssignmentsTest {

    private static Map<String, String> map(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void pairsAndBracketedLists() {
        record Row(String in, Map<String, String> out) {
        }
        Row[] table = {
            new Row("retention.ms=3600000", map("retention.ms", "3600000")),
            new Row("retention.ms=1,cleanup.policy=compact", map("retention.ms", "1", "cleanup.policy", "compact")),
            new Row("cleanup.policy=[compact,delete]", map("cleanup.policy", "compact,delete")),
            new Row("cleanup.policy=[compact,delete],retention.ms=5", map("cleanup.policy", "compact,delete", "retention.ms", "5")),
            new Row("a=[x],b=[]", map("a", "x", "b", "")),
            new Row(" retention.ms = 7 ", map("retention.ms", "7")),
            new Row("sasl.jaas.config=[k=v,k2=v2]", map("sasl.jaas.config", "k=v,k2=v2")),
            new Row("x=a=b", map("x", "a=b")),
            new Row("x=", map("x", "")),
        };
        for (Row row : table) {
            assertThat(ConfigAssignments.parse(row.in())).as(row.in()).containsExactlyEntriesOf(row.out());
        }
    }

    @Test
    void refusesWhatIsNotKeyEqualsValue() {
        for (String bad : List.of("", "novalue", "=v", " =v", "a=1,", "a=[x,b=2", "a=x],b=2", "a=1,a=2")) {
            assertThatThrownBy(() -> ConfigAssignments.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--add-config: ");
        }
    }
}
