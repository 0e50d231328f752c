package io.raftline.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.metadata.BrokerState;
import io.raftline.protocol.metadata.BrokerStateRecord;
import io.raftline.protocol.metadata.IntList;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.PartitionChangeRecord;
import io.raftline.protocol.metadata.PartitionRecord;
import io.raftline.protocol.metadata.TopicRecord;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ControllerEventLogTest {

    private final Uuid topicId = Uuid.random(new SplittableRandom(7));
    private final ByteString idBytes = ByteString.copyFrom(topicId.bytes());

    @Test
    void aLeaderChangeNamesThePartitionTheNewLeaderItsEpochAndTheReason() {
        MetadataRecord topic = MetadataImage.wrap(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder()
            .setName("orders").setTopicId(idBytes)));
        MetadataRecord partition = MetadataImage.wrap(MetadataRecord.newBuilder().setPartition(PartitionRecord.newBuilder()
            .setTopicId(idBytes).setPartition(2).addAllReplicas(List.of(1, 2, 3)).addAllIsr(List.of(1, 2, 3))
            .setLeader(3).setLeaderEpoch(4)));
        MetadataRecord change = MetadataImage.wrap(MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord
            .newBuilder().setTopicId(idBytes).setPartition(2).setLeader(1)
            .setIsr(IntList.newBuilder().addAllValues(List.of(1, 2))).setReason("broker 3 missed its session")));
        MetadataImage image = MetadataDelta.replayAll(MetadataImage.EMPTY, 10, List.of(topic, partition, change)).image();

        assertThat(ControllerEventLog.describe(change, image))
            .isEqualTo("orders-2: leader 1 at epoch 5 ISR [1, 2] because broker 3 missed its session");
        assertThat(ControllerEventLog.describe(topic, image)).isEqualTo("topic orders created (id " + topicId + ")");
        assertThat(ControllerEventLog.describe(partition, image)).as("per-partition creation is not an operator event").isNull();
    }

    @Test
    void brokerStatesReadAsWords() {
        MetadataRecord fenced = MetadataImage.wrap(MetadataRecord.newBuilder().setBrokerState(BrokerStateRecord.newBuilder()
            .setBrokerId(3).setBrokerEpoch(9).setState(BrokerState.SHUTTING_DOWN)));
        assertThat(ControllerEventLog.describe(fenced, MetadataImage.EMPTY)).isEqualTo("broker 3 is now shutting-down");
    }
}
