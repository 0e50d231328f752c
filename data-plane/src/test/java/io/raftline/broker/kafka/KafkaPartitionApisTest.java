package io.raftline.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** DescribeTopicPartitions' paging (KIP-966): topics sorted by name, at most the limit of partitions per page. */
class KafkaPartitionApisTest {

    private static final List<String> NAMES = List.of("a", "b", "c");
    private static final List<Integer> COUNTS = List.of(3, 0, 4);

    private static String show(KafkaPartitionApis.Page page) {
        StringBuilder out = new StringBuilder();
        for (KafkaPartitionApis.Slice s : page.slices()) {
            out.append(NAMES.get(s.index())).append(s.first()).append('+').append(s.count()).append(' ');
        }
        return out.append("next=").append(page.next() == null ? "none" : page.next().topic() + page.next().partition())
            .toString();
    }

    @Test
    void everythingFitsInOnePage() {
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, null, 2000))).isEqualTo("a0+3 b0+0 c0+4 next=none");
    }

    @Test
    void pagesSplitInsideATopicAndResumeAtTheCursor() {
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, null, 2))).isEqualTo("a0+2 next=a2");
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, new KafkaPartitionApis.Cursor("a", 2), 2)))
            .isEqualTo("a2+1 b0+0 c0+1 next=c1");
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, new KafkaPartitionApis.Cursor("c", 1), 2)))
            .isEqualTo("c1+2 next=c3");
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, new KafkaPartitionApis.Cursor("c", 3), 2)))
            .isEqualTo("c3+1 next=none");
    }

    @Test
    void aFullPageEndingOnATopicsLastPartitionPointsAtTheNextTopic() {
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, null, 3))).isEqualTo("a0+3 next=b0");
        // a cursor past every topic, or a limit below one, still makes progress
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, new KafkaPartitionApis.Cursor("d", 0), 5))).isEqualTo("next=none");
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, null, 0))).isEqualTo("a0+1 next=a1");
    }
}
