package io.raftline.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.protocol.group.ConsumerProtocolAssignment;
import io.raftline.protocol.group.ConsumerProtocolSubscription;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ConsumerProtocolTranslationTest {

    private static final ByteBuffer USER_DATA = ByteBuffer.wrap("sticky".getBytes(StandardCharsets.UTF_8));

    @Test
    void aKafkaSubscriptionKeepsTopicsOwnedPartitionsGenerationAndUserData() throws Exception {
        ConsumerPartitionAssignor.Subscription kafka = new ConsumerPartitionAssignor.Subscription(List.of("a", "b"),
            USER_DATA.duplicate(), List.of(new TopicPartition("a", 1)), 7, Optional.empty());
        byte[] kafkaBytes = bytes(ConsumerProtocol.serializeSubscription(kafka));

        byte[] ours = ConsumerProtocolTranslation.subscriptionToRaftline(kafkaBytes);
        ConsumerProtocolSubscription parsed = ConsumerProtocolSubscription.parseFrom(Arrays.copyOfRange(ours, 2, ours.length));
        assertThat(ours[0]).isZero();
        assertThat(ours[1]).isZero();
        assertThat(parsed.getTopicsList()).containsExactly("a", "b");
        assertThat(parsed.getOwnedPartitions(0).getTopic()).isEqualTo("a");
        assertThat(parsed.getOwnedPartitions(0).getPartition()).isEqualTo(1);
        assertThat(parsed.getGenerationId()).isEqualTo(7);
        assertThat(parsed.getUserData().toStringUtf8()).isEqualTo("sticky");

        ConsumerPartitionAssignor.Subscription back = ConsumerProtocol.deserializeSubscription(
            ByteBuffer.wrap(ConsumerProtocolTranslation.subscriptionToKafka(ours)));
        assertThat(back.topics()).containsExactly("a", "b");
        assertThat(back.ownedPartitions()).containsExactly(new TopicPartition("a", 1));
        assertThat(back.generationId()).contains(7);
        assertThat(back.userData()).isEqualTo(USER_DATA.duplicate());
    }

    @Test
    void anAssignmentRoundTripsAndEmptyStaysEmpty() throws Exception {
        ConsumerPartitionAssignor.Assignment kafka = new ConsumerPartitionAssignor.Assignment(
            List.of(new TopicPartition("t", 0), new TopicPartition("t", 3)), null);
        byte[] ours = ConsumerProtocolTranslation.assignmentToRaftline(bytes(ConsumerProtocol.serializeAssignment(kafka)));
        ConsumerProtocolAssignment parsed = ConsumerProtocolAssignment.parseFrom(Arrays.copyOfRange(ours, 2, ours.length));
        assertThat(parsed.getPartitionsCount()).isEqualTo(2);
        assertThat(parsed.getHasUserData()).isFalse();
        ConsumerPartitionAssignor.Assignment back = ConsumerProtocol.deserializeAssignment(
            ByteBuffer.wrap(ConsumerProtocolTranslation.assignmentToKafka(ours)));
        assertThat(back.partitions()).containsExactly(new TopicPartition("t", 0), new TopicPartition("t", 3));
        assertThat(back.userData()).isNull();

        assertThat(ConsumerProtocolTranslation.assignmentToRaftline(new byte[0])).isEmpty();
        assertThat(ConsumerProtocolTranslation.assignmentToKafka(new byte[0])).isEmpty();
    }

    @Test
    void badBytesAreOneClearError() {
        assertThatThrownBy(() -> ConsumerProtocolTranslation.subscriptionToRaftline(new byte[] {0, 0, 0, 9, 1}))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Kafka consumer subscription");
        assertThatThrownBy(() -> ConsumerProtocolTranslation.assignmentToKafka(new byte[] {0, 5, 1}))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("version 5");
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
