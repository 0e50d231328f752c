package io.raftline.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.cli.command.ResetPlanCsv.Row;
import io.raftline.client.common.TopicPartition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResetPlanCsvTest {

    @Test
    void readsBothOfKafkasForms() {
        assertThat(ResetPlanCsv.parse("orders,0,10\norders,1,20\n\n refunds , 0 , 5 \r\n")).containsExactly(
            new Row(null, new TopicPartition("orders", 0), 10), new Row(null, new TopicPartition("orders", 1), 20),
            new Row(null, new TopicPartition("refunds", 0), 5));
        assertThat(ResetPlanCsv.parse("g1,orders,0,10\ng2,orders,0,3")).containsExactly(
            new Row("g1", new TopicPartition("orders", 0), 10), new Row("g2", new TopicPartition("orders", 0), 3));
        assertThat(ResetPlanCsv.parse("")).isEmpty();
    }

    @Test
    void refusesLinesThatAreNotPlanLinesNamingTheLine() {
        Object[][] table = {
            {"orders,0", "line 1 'orders,0': expected topic,partition,offset"},
            {"orders,0,1\ng,orders,0,1", "line 2 'g,orders,0,1': every line needs the same number of columns"},
            {"orders,x,1", "line 1 'orders,x,1': the partition and the offset must be numbers"},
            {"orders,0,-1", "must not be negative"},
            {",0,1", "an empty group or topic"},
            {"a,b,c,d,e", "expected"},
        };
        for (Object[] row : table) {
            assertThatThrownBy(() -> ResetPlanCsv.parse((String) row[0])).as((String) row[0])
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining((String) row[1]);
        }
    }

    @Test
    void formatIsWhatParseReads() {
        Map<TopicPartition, Long> g1 = new LinkedHashMap<>();
        g1.put(new TopicPartition("orders", 0), 10L);
        g1.put(new TopicPartition("orders", 1), 20L);
        Map<String, Map<TopicPartition, Long>> plan = new LinkedHashMap<>();
        plan.put("g1", g1);
        plan.put("g2", Map.of(new TopicPartition("refunds", 2), 7L));
        String one = ResetPlanCsv.format(Map.of("g1", g1), false);
        assertThat(one).isEqualTo("orders,0,10\norders,1,20\n");
        assertThat(ResetPlanCsv.parse(one)).extracting(Row::offset).containsExactly(10L, 20L);
        String many = ResetPlanCsv.format(plan, true);
        assertThat(many).isEqualTo("g1,orders,0,10\ng1,orders,1,20\ng2,refunds,2,7\n");
        assertThat(ResetPlanCsv.parse(many)).extracting(Row::group).containsExactly("g1", "g1", "g2");
    }

    @Test
    void topicScopesAsKafkaReadsThem() {
        assertThat(TopicScope.parse("orders")).isEqualTo(new TopicScope("orders", List.of()));
        assertThat(TopicScope.parse("orders:2")).isEqualTo(new TopicScope("orders", List.of(2)));
        assertThat(TopicScope.parse("orders:0,1,1,3")).isEqualTo(new TopicScope("orders", List.of(0, 1, 3)));
        for (String bad : List.of("", ":1", "orders:", "orders:x", "orders:1,,2", "orders:-1")) {
            assertThatThrownBy(() -> TopicScope.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--topic '");
        }
    }
}
