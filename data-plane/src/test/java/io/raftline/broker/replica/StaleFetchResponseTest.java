package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fetch response is applied only under the fetch state its request was built from (leader epoch and fetch
 * offset). A fetcher keeps running for its leader's other partitions while one partition moves to another leader
 * and back: the answer to a request it sent before the move must not be applied to the log that the other leader's
 * fetcher has changed meanwhile.
 */
class StaleFetchResponseTest {

    @TempDir
    Path tmp;

    @Test
    void anAnswerBuiltForAnEarlierEpochAndLogEndIsDropped() throws Exception {
        try (ReplicationPair pair = new ReplicationPair(tmp)) {
            pair.lead(2, 1, List.of(1, 2));
            pair.partition(2).appendAsLeader(PartitionFixture.batch(3), 1);
            pair.partition(2).appendAsLeader(PartitionFixture.batch(5), 1);
            pair.follow(1, 1);
            pair.fetchOnce(1);
            assertThat(pair.batches(1)).containsExactly("0-2@1", "3-7@1");
            pair.partition(2).appendAsLeader(PartitionFixture.batch(2), 1);

            // Broker 1 asks broker 2 for offset 8 at epoch 1; the answer (8-9) is still on its way when ...
            FetchRequest request = pair.fetcher(1).buildRequest();
            assertThat(request.getPartitions(0).getFetchOffset()).isEqualTo(8);
            FetchResponse inFlight = ReplicationPair.answer(request, pair.partition(2));

            // ... the partition moves to broker 3 at epoch 2, whose fetcher truncates broker 1's log on a divergence
            // at 3, and then back to broker 2 at epoch 3, on the same fetcher.
            pair.fetcher(1).removePartition(ReplicationPair.TP);
            pair.partition(1).makeFollower(ReplicationPair.TOPIC_ID,
                new PartitionRegistration(List.of(1, 2, 3), List.of(1, 3), 3, 2, 2, List.of(), List.of(), false), pair.log(1), 0);
            pair.partition(1).truncateTo(3, 2);
            pair.lead(2, 3, List.of(1, 2));
            pair.follow(1, 3);

            pair.fetcher(1).apply(request, inFlight);

            assertThat(pair.batches(1)).as("broker 1's log after the stale answer arrived").containsExactly("0-2@1");
            pair.fetchOnce(1);
            assertThat(pair.batches(1)).as("the next fetch asks from the current state").isEqualTo(pair.batches(2));
        }
    }

    @Test
    void anAnswerAppliesOnlyToTheEpochAndLogEndItWasAskedFor() {
        FetchRequest.FetchPartition sent = FetchRequest.FetchPartition.newBuilder().setTopic("t").setPartition(0)
            .setCurrentLeaderEpoch(5).setFetchOffset(100).build();
        // epoch now, log end now -> applied
        Object[][] table = {
            {5, 100L, true},
            {6, 100L, false},
            {4, 100L, false},
            {5, 90L, false},
            {5, 110L, false},
        };
        for (Object[] row : table) {
            assertThat(ReplicaFetcher.answersCurrentState(sent, (int) row[0], (long) row[1]))
                .as("asked at epoch 5 from 100; now epoch %s, log end %s", row[0], row[1]).isEqualTo(row[2]);
        }
    }
}
