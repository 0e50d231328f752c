package io.raftline.broker.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.replica.ReplicaManagerFixture;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.ListOffsetsRequest;
import io.raftline.protocol.broker.ListOffsetsResponse;
import io.raftline.record.CompressionType;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ListOffsets over in-process gRPC into a real broker's replica manager. A leader that has just taken a new epoch
 * knows a high watermark that may lag the one its predecessor reported, so until its high watermark reaches the
 * start of its epoch it answers "latest" and time lookups with OFFSET_NOT_AVAILABLE (retriable), as Kafka does:
 * otherwise a client's end offsets go backwards across a leader change. Earliest and a follower's latest (the log
 * end) are answered as before.
 */
class ListOffsetsTest {

    @TempDir
    Path tmp;

    private ReplicaManagerFixture fixture;
    private InProcessDataPlane dataPlane;
    private BrokerServiceGrpc.BrokerServiceBlockingStub stub;

    @BeforeEach
    void start() throws Exception {
        fixture = new ReplicaManagerFixture(tmp, 1, List.of(1, 2), List.of(1, 2));
        dataPlane = new InProcessDataPlane(fixture, new RequestLimits(5, 20, 1 << 20, 5, 1 << 20));
        stub = BrokerServiceGrpc.newBlockingStub(dataPlane.channel);
    }

    @AfterEach
    void stop() throws Exception {
        dataPlane.close();
        fixture.close();
    }

    @Test
    void aNewLeaderWhoseHighWatermarkIsBelowItsEpochStartAnswersOffsetNotAvailable() {
        // Epoch 1: three records stored, the follower copied them, so the high watermark reached 3 and a client
        // was told that the end is 3.
        fixture.partition(0).appendAsLeader(batch(3), 1);
        fixture.followerFetch(0, 2, 3, 1);
        assertThat(fixture.partition(0).highWatermark()).isEqualTo(3);
        fixture.partition(0).appendAsLeader(batch(2), 1);
        assertThat(latest(-1)).isEqualTo(answer(ErrorCode.NONE, 3));

        // Epoch 3: the same broker leads again with records 3-4 not yet known committed; its epoch starts at 5.
        fixture.leadAgain(0, List.of(1, 2));
        assertThat(fixture.partition(0).highWatermark()).isEqualTo(3);
        assertThat(latest(-1)).as("latest while the high watermark is below the epoch start")
            .isEqualTo(answer(ErrorCode.OFFSET_NOT_AVAILABLE, -1));
        assertThat(query(-1, 1_000)).as("a time lookup then").isEqualTo(answer(ErrorCode.OFFSET_NOT_AVAILABLE, -1));
        assertThat(query(-1, -2)).as("earliest is known").isEqualTo(answer(ErrorCode.NONE, 0));
        assertThat(latest(2)).as("a follower's latest is the log end").isEqualTo(answer(ErrorCode.NONE, 5));

        // The follower catches up to the epoch start: the high watermark reaches it, and latest is answered.
        fixture.followerFetch(0, 2, 5, 1);
        assertThat(fixture.partition(0).highWatermark()).isEqualTo(5);
        assertThat(latest(-1)).isEqualTo(answer(ErrorCode.NONE, 5));
        assertThat(query(-1, 1_000)).as("the first record at or after the time").isEqualTo(answer(ErrorCode.NONE, 0));
    }

    private record Answer(ErrorCode code, long offset) {
    }

    private static Answer answer(ErrorCode code, long offset) {
        return new Answer(code, offset);
    }

    private Answer latest(int replicaId) {
        return query(replicaId, -1);
    }

    private Answer query(int replicaId, long timestamp) {
        ListOffsetsResponse response = stub.listOffsets(ListOffsetsRequest.newBuilder().setReplicaId(replicaId)
            .addPartitions(ListOffsetsRequest.PartitionQuery.newBuilder().setTopic(ReplicaManagerFixture.TOPIC)
                .setPartition(0).setTimestamp(timestamp).setCurrentLeaderEpoch(-1)).build());
        ListOffsetsResponse.PartitionResult r = response.getPartitions(0);
        return new Answer(r.getError().getCode(), r.getOffset());
    }

    private static ByteBuffer batch(int records) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1, 64);
        for (int i = 0; i < records; i++) {
            b.append(1_000, null, ("v" + i).getBytes(StandardCharsets.UTF_8), null);
        }
        return b.build();
    }
}
