package io.raftline.client.consumer.assignor;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.raftline.client.common.TopicPartition;
import io.raftline.protocol.group.ConsumerProtocolAssignment;
import io.raftline.protocol.group.ConsumerProtocolSubscription;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The consumer protocol's bytes (group.proto): a subscription in JoinGroup, an assignment in SyncGroup. Each is a
 * big-endian int16 version followed by the protobuf message; a version this client does not know is refused.
 */
public final class ConsumerProtocol {

    /** The protocol type consumer groups use in JoinGroup. */
    public static final String PROTOCOL_TYPE = "consumer";
    public static final short VERSION = 0;

    private ConsumerProtocol() {
    }

    public static byte[] serializeSubscription(ConsumerPartitionAssignor.Subscription s) {
        ConsumerProtocolSubscription.Builder b = ConsumerProtocolSubscription.newBuilder().addAllTopics(s.topics())
            .setGenerationId(s.generationId());
        if (s.userData() != null) {
            b.setHasUserData(true).setUserData(ByteString.copyFrom(s.userData().duplicate()));
        }
        s.ownedPartitions().forEach(tp -> b.addOwnedPartitions(toWire(tp)));
        return encode(b.build());
    }

    public static ConsumerPartitionAssignor.Subscription deserializeSubscription(byte[] bytes) {
        try {
            ConsumerProtocolSubscription s = ConsumerProtocolSubscription.parseFrom(body(bytes, "subscription"));
            return new ConsumerPartitionAssignor.Subscription(s.getTopicsList(),
                s.getHasUserData() ? s.getUserData().asReadOnlyByteBuffer() : null, fromWire(s.getOwnedPartitionsList()),
                s.getGenerationId());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("a subscription that does not parse: " + e.getMessage(), e);
        }
    }

    public static byte[] serializeAssignment(ConsumerPartitionAssignor.Assignment a) {
        ConsumerProtocolAssignment.Builder b = ConsumerProtocolAssignment.newBuilder();
        a.partitions().forEach(tp -> b.addPartitions(toWire(tp)));
        if (a.userData() != null) {
            b.setHasUserData(true).setUserData(ByteString.copyFrom(a.userData().duplicate()));
        }
        return encode(b.build());
    }

    /** An assignment; zero bytes (what the coordinator gives a member the leader left out) is an empty one. */
    public static ConsumerPartitionAssignor.Assignment deserializeAssignment(byte[] bytes) {
        if (bytes.length == 0) {
            return new ConsumerPartitionAssignor.Assignment(List.of());
        }
        try {
            ConsumerProtocolAssignment a = ConsumerProtocolAssignment.parseFrom(body(bytes, "assignment"));
            return new ConsumerPartitionAssignor.Assignment(fromWire(a.getPartitionsList()),
                a.getHasUserData() ? a.getUserData().asReadOnlyByteBuffer() : null);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("an assignment that does not parse: " + e.getMessage(), e);
        }
    }

    private static byte[] encode(MessageLite m) {
        byte[] body = m.toByteArray();
        ByteBuffer out = ByteBuffer.allocate(2 + body.length);
        out.putShort(VERSION).put(body);
        return out.array();
    }

    private static ByteBuffer body(byte[] bytes, String what) {
        if (bytes.length < 2) {
            throw new IllegalArgumentException("a " + what + " of " + bytes.length + " bytes has no version");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        short version = b.getShort();
        if (version != VERSION) {
            throw new IllegalArgumentException("a " + what + " of version " + version + ", which this client does not know");
        }
        return b;
    }

    private static io.raftline.protocol.TopicPartition toWire(TopicPartition tp) {
        return io.raftline.protocol.TopicPartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition()).build();
    }

    private static List<TopicPartition> fromWire(List<io.raftline.protocol.TopicPartition> tps) {
        List<TopicPartition> out = new ArrayList<>(tps.size());
        tps.forEach(tp -> out.add(new TopicPartition(tp.getTopic(), tp.getPartition())));
        return out;
    }
}
