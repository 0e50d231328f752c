package io.raftline.broker.kafka;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.raftline.protocol.group.ConsumerProtocolAssignment;
import io.raftline.protocol.group.ConsumerProtocolSubscription;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer group member's subscription and assignment, between Kafka's encoding (kafka-clients' and librdkafka's
 * {@code ConsumerProtocol}) and Raftline's (a version short then the protobuf message, as the SDK writes it). The
 * Kafka listener stores what Kafka clients send in Raftline's encoding and hands it back in Kafka's, so one group may
 * hold members of both protocols and {@code raftline groups describe} reads every group alike. Topics, owned
 * partitions, the generation and the assignor's user data (opaque bytes) survive both ways; Kafka's rack id (v3) has
 * no field in Raftline's encoding and is dropped.
 *
 * <p>Pure functions: bad bytes are an {@link IllegalArgumentException} naming what did not parse.
 */
final class ConsumerProtocolTranslation {

    /** The protocol type whose metadata is translated; any other (Connect's "connect", …) passes through. */
    static final String CONSUMER = "consumer";
    private static final short OURS_VERSION = 0;

    private ConsumerProtocolTranslation() {
    }

    static byte[] subscriptionToRaftline(byte[] kafka) {
        ConsumerPartitionAssignor.Subscription s;
        try {
            s = ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(kafka));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("a Kafka consumer subscription that does not parse: " + e.getMessage(), e);
        }
        ConsumerProtocolSubscription.Builder b = ConsumerProtocolSubscription.newBuilder().addAllTopics(s.topics())
            .setGenerationId(s.generationId().orElse(-1));
        if (s.userData() != null) {
            b.setHasUserData(true).setUserData(ByteString.copyFrom(s.userData().duplicate()));
        }
        for (TopicPartition tp : s.ownedPartitions()) {
            b.addOwnedPartitions(ours(tp));
        }
        return withVersion(b.build().toByteArray());
    }

    static byte[] subscriptionToKafka(byte[] raftline) {
        ConsumerProtocolSubscription s;
        try {
            s = ConsumerProtocolSubscription.parseFrom(body(raftline, "subscription"));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("a Raftline subscription that does not parse: " + e.getMessage(), e);
        }
        ConsumerPartitionAssignor.Subscription k = new ConsumerPartitionAssignor.Subscription(s.getTopicsList(),
            s.getHasUserData() ? s.getUserData().asReadOnlyByteBuffer() : null, kafka(s.getOwnedPartitionsList()),
            s.getGenerationId(), Optional.empty());
        return bytes(ConsumerProtocol.serializeSubscription(k));
    }

    static byte[] assignmentToRaftline(byte[] kafka) {
        if (kafka.length == 0) {
            return kafka;
        }
        ConsumerPartitionAssignor.Assignment a;
        try {
            a = ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(kafka));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("a Kafka consumer assignment that does not parse: " + e.getMessage(), e);
        }
        ConsumerProtocolAssignment.Builder b = ConsumerProtocolAssignment.newBuilder();
        for (TopicPartition tp : a.partitions()) {
            b.addPartitions(ours(tp));
        }
        if (a.userData() != null) {
            b.setHasUserData(true).setUserData(ByteString.copyFrom(a.userData().duplicate()));
        }
        return withVersion(b.build().toByteArray());
    }

    static byte[] assignmentToKafka(byte[] raftline) {
        if (raftline.length == 0) {
            return raftline;
        }
        ConsumerProtocolAssignment a;
        try {
            a = ConsumerProtocolAssignment.parseFrom(body(raftline, "assignment"));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("a Raftline assignment that does not parse: " + e.getMessage(), e);
        }
        return bytes(ConsumerProtocol.serializeAssignment(new ConsumerPartitionAssignor.Assignment(
            kafka(a.getPartitionsList()), a.getHasUserData() ? a.getUserData().asReadOnlyByteBuffer() : null)));
    }

    private static byte[] withVersion(byte[] body) {
        return ByteBuffer.allocate(2 + body.length).putShort(OURS_VERSION).put(body).array();
    }

    private static ByteBuffer body(byte[] bytes, String what) {
        if (bytes.length < 2) {
            throw new IllegalArgumentException("a Raftline " + what + " of " + bytes.length + " bytes has no version");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        short version = b.getShort();
        if (version != OURS_VERSION) {
            throw new IllegalArgumentException("a Raftline " + what + " of version " + version);
        }
        return b;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static io.raftline.protocol.TopicPartition ours(TopicPartition tp) {
        return io.raftline.protocol.TopicPartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition()).build();
    }

    private static List<TopicPartition> kafka(List<io.raftline.protocol.TopicPartition> tps) {
        List<TopicPartition> out = new ArrayList<>(tps.size());
        tps.forEach(tp -> out.add(new TopicPartition(tp.getTopic(), tp.getPartition())));
        return out;
    }
}
