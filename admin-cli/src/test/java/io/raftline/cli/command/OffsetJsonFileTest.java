package io.raftline.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.client.common.TopicPartition;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OffsetJsonFileTest {

    @Test
    void readsKafkasFileInOrderWithMinusOneForTheHighWatermark() {
        assertThat(OffsetJsonFile.parse("{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":1,\"offset\":10},"
            + "{\"topic\":\"t\",\"partition\":0,\"offset\":-1},{\"topic\":\"u\",\"partition\":0,\"offset\":0}]}"))
            .containsExactly(Map.entry(new TopicPartition("t", 1), 10L), Map.entry(new TopicPartition("t", 0), -1L),
                Map.entry(new TopicPartition("u", 0), 0L));
        assertThat(OffsetJsonFile.parse("{\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":3}]}"))
            .as("kafka-delete-records takes a file without version").containsEntry(new TopicPartition("t", 0), 3L);
    }

    @Test
    void refusesWhatIsNotSuchAFileNamingWhy() {
        String[][] table = {
            {"", "expected {\"version\":1"},
            {"{", "not JSON"},
            {"[]", "expected {\"version\":1"},
            {"{\"version\":2,\"partitions\":[]}", "unsupported version 2"},
            {"{\"version\":1,\"partitions\":[]}", "lists no partition"},
            {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}", "without a topic, partition and offset"},
            {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":\"0\",\"offset\":1}]}", "without a topic"},
            {"{\"version\":1,\"partitions\":[{\"topic\":\"\",\"partition\":0,\"offset\":1}]}", "without a topic"},
            {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":1.5}]}", "without a topic"},
            {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":-1,\"offset\":1}]}", "must not be negative"},
            {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":-2}]}", "neither an offset nor -1"},
            {"{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":1},"
                + "{\"topic\":\"t\",\"partition\":0,\"offset\":2}]}", "listed twice"},
        };
        for (String[] row : table) {
            assertThatThrownBy(() -> OffsetJsonFile.parse(row[0])).as(row[0]).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(row[1]);
        }
    }
}
