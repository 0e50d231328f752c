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

    @Test
    void partitionChangesPastTheFirstHundredOfAnEntryAreCountedByReason() {
        List<MetadataRecord> records = new java.util.ArrayList<>();
        records.add(MetadataImage.wrap(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("big")
            .setTopicId(idBytes))));
        for (int p = 0; p < 14_000; p++) {
            records.add(MetadataImage.wrap(MetadataRecord.newBuilder().setPartition(PartitionRecord.newBuilder()
                .setTopicId(idBytes).setPartition(p).addReplicas(3).addIsr(3).setLeader(3).setLeaderEpoch(0))));
        }
        MetadataImage image = MetadataDelta.replayAll(MetadataImage.EMPTY, 10, records).image();
        List<MetadataRecord> entry = new java.util.ArrayList<>();
        entry.add(MetadataImage.wrap(MetadataRecord.newBuilder().setBrokerState(BrokerStateRecord.newBuilder()
            .setBrokerId(3).setBrokerEpoch(9).setState(BrokerState.FENCED))));
        for (int p = 0; p < 14_000; p++) {
            entry.add(MetadataImage.wrap(MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord.newBuilder()
                .setTopicId(idBytes).setPartition(p).setLeader(-1).setReason(p % 2 == 0 ? "broker 3 missed its session"
                    : "other"))));
        }
        List<String> lines = ControllerEventLog.lines(entry, image);
        assertThat(lines).hasSize(1 + ControllerEventLog.PARTITION_LINES + 1);
        assertThat(lines.get(0)).isEqualTo("broker 3 is now fenced");
        assertThat(lines.get(1)).isEqualTo("big-0: leader none at epoch 0 because broker 3 missed its session");
        assertThat(lines.get(lines.size() - 1)).isEqualTo("and 13900 more partition changes: 6950 because broker 3 "
            + "missed its session; 6950 because other");
        // an entry within the bound is logged a line a record, as before
        assertThat(ControllerEventLog.lines(entry.subList(0, 51), image)).hasSize(51);
    }
}
