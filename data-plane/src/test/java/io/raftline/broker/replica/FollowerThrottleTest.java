package io.raftline.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.common.ManualTime;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.metadata.ConfigRecord;
import io.raftline.protocol.metadata.ConfigResourceType;
import io.raftline.protocol.metadata.MetadataRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The follower replication throttle in the {@link ReplicaFetcher}: broker 2 follows t-0 out of the ISR, its replica
 * listed in {@code follower.replication.throttled.replicas} and its rate 100 B/s. It asks for no more than its
 * allowance, leaves the partition out of its requests while in debt, and asks again once the clock paid it back; in
 * the ISR it is not throttled.
 */
class FollowerThrottleTest {

    @TempDir
    Path tmp;

    @Test
    void anOutOfSyncThrottledReplicaFetchesWithinTheRate() throws Exception {
        ManualTime time = new ManualTime();
        ReplicationQuotas quotas = new ReplicationQuotas(2, time, Map.of("follower.replication.throttled.rate", "100"));
        MetadataImage image = MetadataDelta.replayAll(MetadataImage.EMPTY, 1, List.of(MetadataRecord.newBuilder()
            .setConfig(ConfigRecord.newBuilder().setResourceType(ConfigResourceType.TOPIC).setResourceName("t")
                .setName("follower.replication.throttled.replicas").setValue("0:2")).build())).image();
        quotas.update(image);
        try (ReplicationPair pair = new ReplicationPair(tmp, Map.of(2, quotas))) {
            pair.lead(1, 1, List.of(1));
            for (int i = 0; i < 5; i++) {
                pair.partition(1).appendAsLeader(PartitionFixture.batchAt(0, 10), 1);
            }
            pair.follow(2, 1, List.of(1));
            ReplicaFetcher fetcher = pair.fetcher(2);

            FetchRequest first = fetcher.buildRequest();
            assertThat(first.getPartitions(0).getPartitionMaxBytes()).as("the allowance: one window of the rate")
                .isEqualTo(100);
            fetcher.apply(first, ReplicationPair.answer(first, pair.partition(1)));
            long batchBytes = pair.log(2).size();
            assertThat(pair.log(2).logEndOffset()).as("one batch, larger than the allowance").isEqualTo(10);
            assertThat(batchBytes).isGreaterThan(100);

            assertThat(fetcher.buildRequest().getPartitionsCount()).as("in debt: left out").isZero();
            long paidBackMs = (batchBytes - 100) * 1000 / 100;
            time.advance(paidBackMs + 20);
            FetchRequest again = fetcher.buildRequest();
            assertThat(again.getPartitionsCount()).isEqualTo(1);
            assertThat(again.getPartitions(0).getPartitionMaxBytes()).isBetween(1, 3);

            // in the ISR: fetches everything at once
            pair.follow(2, 1, List.of(1, 2));
            pair.fetchOnce(2);
            assertThat(pair.log(2).logEndOffset()).isEqualTo(50);
        }
    }
}
