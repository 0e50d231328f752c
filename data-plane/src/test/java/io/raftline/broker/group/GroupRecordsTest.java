package io.raftline.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.raftline.protocol.group.GroupMetadataValue;
import io.raftline.protocol.group.OffsetCommitValue;
import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class GroupRecordsTest {

    private static List<GroupRecords.Decoded> decodeAll(ByteBuffer batch) {
        List<GroupRecords.Decoded> out = new ArrayList<>();
        for (RecordBatch b : Records.batches(batch)) {
            b.ensureValid();
            for (Record r : b.records()) {
                out.add(GroupRecords.decode(r));
            }
        }
        return out;
    }

    @Test
    void everyKindOfRecordRoundTrips() {
        OffsetCommitValue oc = OffsetCommitValue.newBuilder().setOffset(42).setLeaderEpoch(3).setMetadata("m")
            .setCommitTimestampMs(1234).build();
        GroupMetadataValue gm = GroupMetadataValue.newBuilder().setProtocolType("consumer").setGeneration(7).setProtocol("range")
            .setLeader("a").setCurrentStateTimestampMs(99).addMembers(GroupMetadataValue.Member.newBuilder().setMemberId("a")
                .setClientId("c").setClientHost("/h").setSessionTimeoutMs(45000).setRebalanceTimeoutMs(300000)
                .setSubscription(ByteString.copyFromUtf8("s")).setAssignment(ByteString.copyFromUtf8("x"))).build();
        ByteBuffer batch = GroupRecords.batch(List.of(
            GroupRecords.offsetCommit("g", "t", 1, oc),
            GroupRecords.offsetCommit("g", "t", 1, null),
            GroupRecords.groupMetadata("g", gm),
            GroupRecords.groupMetadata("g", null)), 5000);
        assertThat(decodeAll(batch)).containsExactly(
            new GroupRecords.OffsetCommit("g", "t", 1, oc),
            new GroupRecords.OffsetCommit("g", "t", 1, null),
            new GroupRecords.GroupMetadata("g", gm),
            new GroupRecords.GroupMetadata("g", null));
    }

    @Test
    void keysAreVersionedAndEqualForTheSameIdentity() {
        byte[] k1 = GroupRecords.offsetCommit("g", "t", 1, OffsetCommitValue.newBuilder().setOffset(1).build()).key();
        byte[] k2 = GroupRecords.offsetCommit("g", "t", 1, OffsetCommitValue.newBuilder().setOffset(2).build()).key();
        assertThat(k1).isEqualTo(k2);
        assertThat(k1[0]).isZero();
        assertThat(k1[1]).isEqualTo((byte) GroupRecords.OFFSET_COMMIT_KEY_VERSION);
        byte[] g = GroupRecords.groupMetadata("g", null).key();
        assertThat(g[1]).isEqualTo((byte) GroupRecords.GROUP_METADATA_KEY_VERSION);
        assertThat(Arrays.equals(k1, g)).isFalse();
    }

    @Test
    void unknownVersionsAreRefused() {
        ByteBuffer unknownKey = GroupRecords.batch(List.of(new GroupRecords.KeyValue(new byte[] {0, 7}, null)), 0);
        assertThatThrownBy(() -> decodeAll(unknownKey)).isInstanceOf(GroupRecordException.class).hasMessageContaining("key version 7");
        byte[] key = GroupRecords.groupMetadata("g", null).key();
        ByteBuffer unknownValue = GroupRecords.batch(List.of(new GroupRecords.KeyValue(key, new byte[] {0, 9})), 0);
        assertThatThrownBy(() -> decodeAll(unknownValue)).isInstanceOf(GroupRecordException.class)
            .hasMessageContaining("value version 9");
        ByteBuffer noKey = GroupRecords.batch(List.of(new GroupRecords.KeyValue(null, new byte[] {0, 1})), 0);
        assertThatThrownBy(() -> decodeAll(noKey)).isInstanceOf(GroupRecordException.class);
    }
}
