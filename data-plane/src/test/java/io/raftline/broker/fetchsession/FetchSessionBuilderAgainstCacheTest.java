package io.raftline.broker.fetchsession;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.broker.replica.FetchManager.PartitionFetch;
import io.raftline.broker.replica.TopicPartition;
import io.raftline.common.ManualTime;
import io.raftline.fetchsession.FetchSessionBuilder;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A fetcher's side of a fetch session ({@link FetchSessionBuilder}, a follower's here), against the leader's real {@link FetchSessionCache}: after every answer the
 * leader's session holds exactly what the follower's whole request named.
 */
class FetchSessionBuilderAgainstCacheTest {

    private static final long SEED = 0xf011_0e55L;

    private final FetchSessionCache leader = new FetchSessionCache(10, new ManualTime(), new SplittableRandom(SEED));
    private final FetchSessionBuilder follower = new FetchSessionBuilder();

    private static FetchRequest.FetchPartition part(int p, long offset) {
        return FetchRequest.FetchPartition.newBuilder().setTopic("t").setPartition(p).setFetchOffset(offset)
            .setCurrentLeaderEpoch(3).setLastFetchedEpoch(3).setPartitionMaxBytes(1024).build();
    }

    private static FetchRequest whole(FetchRequest.FetchPartition... parts) {
        return FetchRequest.newBuilder().setReplicaId(2).setReplicaEpoch(7).setMaxWaitMs(500).setMinBytes(1)
            .addAllPartitions(List.of(parts)).build();
    }

    /** The leader's handling, as DataPlaneRpc does it: open, then answer with the session id and no partitions. */
    private FetchSessionCache.Context send(FetchRequest wire) {
        List<PartitionFetch> parts = wire.getPartitionsList().stream().map(p -> new PartitionFetch(
            new TopicPartition(p.getTopic(), p.getPartition()), p.getFetchOffset(), p.getPartitionMaxBytes(),
            p.getCurrentLeaderEpoch(), p.getLastFetchedEpoch(), p.getLogStartOffset())).toList();
        List<TopicPartition> forgotten = wire.getForgottenList().stream()
            .map(f -> new TopicPartition(f.getTopic(), f.getPartition())).toList();
        FetchSessionCache.Context c = leader.open(wire.getSessionId(), wire.getSessionEpoch(), true, parts, forgotten);
        FetchResponse.Builder answer = FetchResponse.newBuilder().setSessionId(c.sessionId());
        if (c.refusal() != null) {
            answer.setError(io.raftline.protocol.Error.newBuilder().setCode(ErrorCode.INVALID_REQUEST));
        }
        follower.onResponse(answer.build());
        return c;
    }

    private static List<Long> offsets(FetchSessionCache.Context c) {
        return c.partitions().stream().map(PartitionFetch::fetchOffset).toList();
    }

    @Test
    void aFullFetchThenOnlyWhatChanged() {
        FetchRequest first = follower.toWire(whole(part(0, 10), part(1, 20), part(2, 30)));
        assertThat(first.hasSessionEpoch()).isTrue();
        assertThat(first.getSessionId()).isZero();
        assertThat(first.getSessionEpoch()).isZero();
        assertThat(first.getPartitionsCount()).isEqualTo(3);
        FetchSessionCache.Context full = send(first);
        assertThat(follower.sessionId()).isEqualTo(full.sessionId()).isNotZero();

        // 1 moved, 2 no longer wanted, 3 is new, 0 unchanged
        FetchRequest second = follower.toWire(whole(part(0, 10), part(1, 25), part(3, 0)));
        assertThat(second.getSessionId()).isEqualTo(full.sessionId());
        assertThat(second.getSessionEpoch()).isEqualTo(1);
        assertThat(second.getPartitionsList()).containsExactly(part(1, 25), part(3, 0));
        assertThat(second.getForgottenList()).extracting(FetchRequest.ForgottenPartition::getPartition).containsExactly(2);
        assertThat(second.getReplicaId()).isEqualTo(2);
        assertThat(second.getMaxWaitMs()).isEqualTo(500);
        FetchSessionCache.Context inc = send(second);
        assertThat(inc.kind()).isEqualTo(FetchSessionCache.Kind.INCREMENTAL);
        assertThat(inc.partitions()).extracting(PartitionFetch::tp)
            .containsExactlyInAnyOrder(new TopicPartition("t", 0), new TopicPartition("t", 1), new TopicPartition("t", 3));
        assertThat(offsets(inc)).containsExactlyInAnyOrder(10L, 25L, 0L);

        // nothing changed: an empty request, the leader reads the same three
        FetchRequest third = follower.toWire(whole(part(0, 10), part(1, 25), part(3, 0)));
        assertThat(third.getPartitionsCount()).isZero();
        assertThat(third.getForgottenCount()).isZero();
        assertThat(third.getSessionEpoch()).isEqualTo(2);
        assertThat(offsets(send(third))).containsExactlyInAnyOrder(10L, 25L, 0L);
    }

    @Test
    void aRefusedOrLostAnswerStartsOverWithAFullFetchThatClosesTheOldSession() {
        int first = send(follower.toWire(whole(part(0, 10)))).sessionId();
        send(follower.toWire(whole(part(0, 11))));
        // the leader lost the session (evicted, restarted): refused, then a full fetch naming the old id
        leader.open(first, -1, true, List.of(), List.of());
        FetchSessionCache.Context refused = send(follower.toWire(whole(part(0, 12))));
        assertThat(refused.refusal()).isEqualTo(FetchSessionCache.Refusal.FETCH_SESSION_ID_NOT_FOUND);
        FetchRequest again = follower.toWire(whole(part(0, 12)));
        assertThat(again.getSessionId()).isEqualTo(first);
        assertThat(again.getSessionEpoch()).isZero();
        assertThat(again.getPartitionsCount()).isEqualTo(1);
        int second = send(again).sessionId();
        assertThat(second).isNotZero().isNotEqualTo(first);

        // the stream broke with a request in flight: its answer never comes
        follower.toWire(whole(part(0, 13)));
        follower.startOver();
        FetchRequest afterBreak = follower.toWire(whole(part(0, 13)));
        assertThat(afterBreak.getSessionId()).isEqualTo(second);
        assertThat(afterBreak.getSessionEpoch()).isZero();
        send(afterBreak);
        assertThat(leader.size()).as("the old session closed, a new one made").isEqualTo(1);
    }

    @Test
    void aLeaderWithoutSessionsKeepsItFull() {
        for (int i = 0; i < 3; i++) {
            FetchRequest wire = follower.toWire(whole(part(0, i), part(1, i)));
            assertThat(wire.getSessionId()).isZero();
            assertThat(wire.getSessionEpoch()).isZero();
            assertThat(wire.getPartitionsCount()).isEqualTo(2);
            // an older leader (or one without a free slot) answers session 0
            follower.onResponse(FetchResponse.getDefaultInstance());
        }
        assertThatThrownBy(() -> follower.onResponse(FetchResponse.getDefaultInstance()))
            .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void manyRoundsKeepTheLeadersSessionEqualToTheWholeRequest() {
        SplittableRandom random = new SplittableRandom(SEED);
        long[] offsets = new long[16];
        for (int round = 0; round < 200; round++) {
            List<FetchRequest.FetchPartition> wanted = IntStream.range(0, offsets.length)
                .filter(p -> random.nextInt(4) != 0)
                .mapToObj(p -> part(p, offsets[p] += random.nextInt(3)))
                .toList();
            FetchRequest whole = whole(wanted.toArray(FetchRequest.FetchPartition[]::new));
            FetchSessionCache.Context c = send(follower.toWire(whole));
            assertThat(c.partitions()).as("seed %d, round %d", SEED, round).containsExactlyInAnyOrderElementsOf(
                wanted.stream().map(p -> new PartitionFetch(new TopicPartition("t", p.getPartition()), p.getFetchOffset(),
                    1024, 3, 3, 0)).toList());
        }
        assertThat(leader.requests(true, FetchSessionCache.Kind.INCREMENTAL)).isEqualTo(199);
    }
}
