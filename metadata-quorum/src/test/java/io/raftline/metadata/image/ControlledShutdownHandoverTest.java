package io.raftline.metadata.image;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.raftline.protocol.metadata.BrokerState;
import io.raftline.protocol.metadata.BrokerStateRecord;
import io.raftline.protocol.metadata.Endpoint;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.PartitionRecord;
import io.raftline.protocol.metadata.RegisterBrokerRecord;
import io.raftline.protocol.metadata.TopicRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link MetadataImage#controlledShutdownHandsOver}: whether broker 3's controlled shutdown has anything to hand to
 * another broker, over brokers 1 to 3 in the given states and one partition.
 */
class ControlledShutdownHandoverTest {

    private static final Map<String, BrokerState> STATES = Map.of("A", BrokerState.ACTIVE, "F", BrokerState.FENCED,
        "S", BrokerState.SHUTTING_DOWN);

    @ParameterizedTest(name = "brokers {0}, replicas {1} ISR {2} leader {3}: {4}")
    @CsvSource(delimiter = '|', textBlock = """
        # brokers 1 2 3 | replicas | ISR   | leader | hands over
        AAS             | 3 1 2    | 3 1 2 | 3      | true
        AAS             | 1 2 3    | 1 2 3 | 1      | true
        FFS             | 3 1 2    | 3     | 3      | false
        SFS             | 3 1 2    | 3 1   | 3      | false
        AFS             | 3 1 2    | 3 2   | 3      | false
        AFS             | 3 1 2    | 3 1   | 3      | true
        AAS             | 3 1 2    | 3     | 3      | false
        AAS             | 1 2 3    | 1 2   | 1      | false
        FAS             | 1 2 3    | 1 3   | 1      | false
        AAS             | 1 2 3    | 3     | -1     | false
        AAS             | 1 2      | 1 2   | 1      | false
        """)
    void handsOverOnlyWhatAnotherActiveBrokerCanTake(String brokers, String replicas, String isr, int leader,
        boolean handsOver) {
        assertThat(image(brokers, ids(replicas), ids(isr), leader).controlledShutdownHandsOver(3)).isEqualTo(handsOver);
    }

    private static List<Integer> ids(String list) {
        List<Integer> out = new ArrayList<>();
        for (String id : list.trim().split(" +")) {
            out.add(Integer.parseInt(id));
        }
        return out;
    }

    private static MetadataImage image(String brokerStates, List<Integer> replicas, List<Integer> isr, int leader) {
        List<MetadataRecord> records = new ArrayList<>();
        for (int b = 1; b <= 3; b++) {
            records.add(MetadataImage.wrap(MetadataRecord.newBuilder().setRegisterBroker(RegisterBrokerRecord.newBuilder()
                .setBrokerId(b).setIncarnationId("inc-" + b).setFenced(true)
                .addEndpoints(Endpoint.newBuilder().setName("broker").setHost("127.0.0.1").setPort(9000 + b)))));
            records.add(MetadataImage.wrap(MetadataRecord.newBuilder().setBrokerState(BrokerStateRecord.newBuilder()
                .setBrokerId(b).setBrokerEpoch(1).setState(STATES.get(brokerStates.substring(b - 1, b))))));
        }
        ByteString id = ByteString.copyFrom(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7});
        records.add(MetadataImage.wrap(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("t")
            .setTopicId(id))));
        records.add(MetadataImage.wrap(MetadataRecord.newBuilder().setPartition(PartitionRecord.newBuilder()
            .setTopicId(id).setPartition(0).addAllReplicas(replicas).addAllIsr(isr).setLeader(leader).setLeaderEpoch(1)
            .setPartitionEpoch(1))));
        MetadataImage image = MetadataDelta.replayAll(MetadataImage.EMPTY, 1, records).image();
        assertThat(image.broker(3).orElseThrow().state()).isEqualTo(BrokerState.SHUTTING_DOWN);
        return image;
    }
}
