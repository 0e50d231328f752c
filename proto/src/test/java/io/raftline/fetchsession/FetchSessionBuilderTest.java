package io.raftline.fetchsession;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The fetcher's side of a fetch session as the SDK consumer drives it, one table row per fetch: the whole request
 * (every partition ready: {@code p@offset}, {@code p@offset/max} for other limits), what goes on the wire (session
 * id/epoch, named partitions, forgotten ones) and how the broker answers ({@code id N}, an error, or {@code lost}: the
 * stream broke). The same class builds a follower's requests ({@code FetchSessionBuilderAgainstCacheTest} in
 * data-plane runs it against the broker's real session cache).
 */
class FetchSessionBuilderTest {

    /** whole request | expected wire: "id/epoch named... | forgotten..." | answer. */
    private static final String[][] TABLE = {
        // a full fetch asks for a session
        {"a@0 b@0", "0/0 a@0 b@0 |", "id 7"},
        // nothing changed: nothing named, the broker reads its session's two
        {"a@0 b@0", "7/1 |", "id 7"},
        // a moved, c assigned
        {"a@5 b@0 c@0", "7/2 a@5 c@0 |", "id 7"},
        // a unassigned, b paused (or buffered full): forgotten
        {"c@0", "7/3 | a b", "id 7"},
        // b back; the broker lost the session (restart, eviction)
        {"b@0 c@0", "7/4 b@0 |", "error FETCH_SESSION_ID_NOT_FOUND"},
        // starting over: full, naming the old id with epoch 0 (closes it)
        {"b@0 c@0", "7/0 b@0 c@0 |", "id 9"},
        {"b@0 c@3", "9/1 c@3 |", "error INVALID_FETCH_SESSION_EPOCH"},
        {"b@0 c@3", "9/0 b@0 c@3 |", "id 11"},
        // a changed limit is a change
        {"b@0/64 c@3", "11/1 b@0/64 |", "id 11"},
        // the stream broke with the fetch in flight
        {"b@0/64 c@4", "11/2 c@4 |", "lost"},
        {"b@0/64 c@4", "11/0 b@0/64 c@4 |", "id 11"},
        // an answer naming another session: start over
        {"b@1/64 c@4", "11/1 b@1/64 |", "id 12"},
        // an older broker (or no free slot) answers session 0: full fetches from then on
        {"b@1/64 c@4", "11/0 b@1/64 c@4 |", "id 0"},
        {"b@2/64 c@4", "0/0 b@2/64 c@4 |", "id 0"},
        {"b@2/64 c@4", "0/0 b@2/64 c@4 |", "error INVALID_REQUEST"},
        // until one makes a session
        {"b@2/64 c@4", "0/0 b@2/64 c@4 |", "id 13"},
        {"c@4", "13/1 | b", "id 13"},
    };

    private static FetchRequest.FetchPartition part(String spec) {
        String[] nameRest = spec.split("@");
        String[] offsetMax = nameRest[1].split("/");
        return FetchRequest.FetchPartition.newBuilder().setTopic("t-" + nameRest[0]).setPartition(nameRest[0].charAt(0))
            .setFetchOffset(Long.parseLong(offsetMax[0])).setCurrentLeaderEpoch(2).setLastFetchedEpoch(-1)
            .setLogStartOffset(-1).setPartitionMaxBytes(offsetMax.length > 1 ? Integer.parseInt(offsetMax[1]) : 1024)
            .build();
    }

    private static FetchRequest whole(String specs) {
        FetchRequest.Builder b = FetchRequest.newBuilder().setReplicaId(-1).setMaxWaitMs(500).setMinBytes(1)
            .setMaxBytes(1 << 20);
        Arrays.stream(specs.split(" ")).filter(s -> !s.isEmpty()).map(FetchSessionBuilderTest::part)
            .forEach(b::addPartitions);
        return b.build();
    }

    private static String describe(FetchRequest wire) {
        String named = wire.getPartitionsList().stream().map(p -> p.getTopic().substring(2) + "@" + p.getFetchOffset()
            + (p.getPartitionMaxBytes() == 1024 ? "" : "/" + p.getPartitionMaxBytes())).collect(Collectors.joining(" "));
        String forgotten = wire.getForgottenList().stream().map(f -> f.getTopic().substring(2))
            .collect(Collectors.joining(" "));
        return (wire.getSessionId() + "/" + wire.getSessionEpoch() + " " + named).trim() + " |"
            + (forgotten.isEmpty() ? "" : " " + forgotten);
    }

    private static FetchResponse answer(String spec) {
        String[] words = spec.split(" ");
        return words[0].equals("id") ? FetchResponse.newBuilder().setSessionId(Integer.parseInt(words[1])).build()
            : FetchResponse.newBuilder().setError(Error.newBuilder().setCode(ErrorCode.valueOf(words[1]))).build();
    }

    @Test
    void eachFetchOfTheTable() {
        FetchSessionBuilder session = new FetchSessionBuilder();
        List<String> got = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < TABLE.length; i++) {
            String[] row = TABLE[i];
            FetchRequest wire = session.toWire(whole(row[0]));
            assertThat(wire.hasSessionEpoch()).isTrue();
            assertThat(wire.getMaxWaitMs()).as("the request's own settings stay").isEqualTo(500);
            got.add(i + ": " + describe(wire));
            expected.add(i + ": " + row[1]);
            if (row[2].equals("lost")) {
                session.startOver();
            } else {
                session.onResponse(answer(row[2]));
            }
        }
        assertThat(got).containsExactlyElementsOf(expected);
    }

    @Test
    void closingEndsTheSessionWithEpochMinusOneAndNothingNamed() {
        FetchSessionBuilder session = new FetchSessionBuilder();
        assertThat(session.closing(whole(""))).as("no session: nothing to close").isNull();
        session.toWire(whole("a@0"));
        session.onResponse(answer("id 5"));
        assertThat(session.incremental()).isTrue();
        FetchRequest close = session.closing(whole("a@3"));
        assertThat(close.getSessionId()).isEqualTo(5);
        assertThat(close.getSessionEpoch()).isEqualTo(FetchSessionBuilder.FINAL_EPOCH);
        assertThat(close.getPartitionsCount()).isZero();
        assertThat(close.getMaxWaitMs()).as("answered at once").isZero();
        assertThat(session.sessionId()).isZero();
        assertThat(session.closing(whole(""))).isNull();
        assertThat(describe(session.toWire(whole("a@3")))).isEqualTo("0/0 a@3 |");
    }

    @Test
    void oneFetchInFlightAtATime() {
        FetchSessionBuilder session = new FetchSessionBuilder();
        session.toWire(whole("a@0"));
        assertThat(session.inFlight()).isTrue();
        assertThatThrownBy(() -> session.toWire(whole("a@0"))).isInstanceOf(IllegalStateException.class);
        session.onResponse(answer("id 3"));
        assertThatThrownBy(() -> session.onResponse(answer("id 3"))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void epochsWrapPastZeroAndMinusOne() {
        assertThat(FetchSessionBuilder.nextEpoch(0)).isEqualTo(1);
        assertThat(FetchSessionBuilder.nextEpoch(41)).isEqualTo(42);
        assertThat(FetchSessionBuilder.nextEpoch(Integer.MAX_VALUE)).isEqualTo(1);
    }
}
