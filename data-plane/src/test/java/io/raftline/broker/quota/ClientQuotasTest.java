package io.raftline.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.common.ManualTime;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.metadata.ConfigRecord;
import io.raftline.protocol.metadata.ConfigResourceType;
import io.raftline.protocol.metadata.MetadataRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientQuotasTest {

    private static MetadataImage image(String... typeNameKeyValue) {
        List<MetadataRecord> records = new ArrayList<>();
        for (int i = 0; i < typeNameKeyValue.length; i += 4) {
            records.add(MetadataImage.wrap(MetadataRecord.newBuilder().setConfig(ConfigRecord.newBuilder()
                .setResourceType(typeNameKeyValue[i].equals("user") ? ConfigResourceType.USER : ConfigResourceType.CLIENT)
                .setResourceName(typeNameKeyValue[i + 1]).setName(typeNameKeyValue[i + 2]).setValue(typeNameKeyValue[i + 3]))));
        }
        return MetadataDelta.replayAll(MetadataImage.EMPTY, 1, records).image();
    }

    record Row(String why, MetadataImage image, ClientQuotas.Kind kind, String principal, String clientId,
               ClientQuotas.Limit expected) {
    }

    @Test
    void theMostSpecificQuotaOfEachKindApplies() {
        MetadataImage all = image(
            "user", "alice", "producer_byte_rate", "1000",
            "user", "<default>", "producer_byte_rate", "2000",
            "user", "<default>", "consumer_byte_rate", "2500",
            "client", "app", "producer_byte_rate", "3000",
            "client", "app", "consumer_byte_rate", "3500",
            "client", "<default>", "producer_byte_rate", "4000",
            "client", "<default>", "request_percentage", "50");
        MetadataImage clientsOnly = image("client", "app", "producer_byte_rate", "3000",
            "client", "<default>", "producer_byte_rate", "4000");
        List<Row> table = List.of(
            new Row("the user's own", all, ClientQuotas.Kind.PRODUCE, "User:alice", "app", new ClientQuotas.Limit("user:alice", 1000)),
            new Row("the default user's, per user", all, ClientQuotas.Kind.PRODUCE, "User:bob", "app",
                new ClientQuotas.Limit("user:bob", 2000)),
            new Row("a kind the user's own does not set falls to the next level", all, ClientQuotas.Kind.FETCH, "User:alice",
                "app", new ClientQuotas.Limit("user:alice", 2500)),
            new Row("the client id's own", clientsOnly, ClientQuotas.Kind.PRODUCE, "User:ANONYMOUS", "app",
                new ClientQuotas.Limit("client:app", 3000)),
            new Row("the default client's, per client id", clientsOnly, ClientQuotas.Kind.PRODUCE, "User:ANONYMOUS", "other",
                new ClientQuotas.Limit("client:other", 4000)),
            new Row("request share: 50 % of one thread's second", all, ClientQuotas.Kind.REQUEST_TIME, "User:alice", "x",
                new ClientQuotas.Limit("client:x", 500_000_000L)),
            new Row("none set", clientsOnly, ClientQuotas.Kind.FETCH, "User:ANONYMOUS", "app", null),
            new Row("nothing at all", MetadataImage.EMPTY, ClientQuotas.Kind.PRODUCE, "User:alice", "app", null));
        for (Row row : table) {
            assertThat(ClientQuotas.resolve(row.image(), row.kind(), row.principal(), row.clientId())).as(row.why())
                .isEqualTo(row.expected());
        }
    }

    @Test
    void usePastTheRateIsThrottledUntilItsDebtIsPaid() {
        ManualTime time = new ManualTime();
        MetadataImage quotas = image("client", "app", "producer_byte_rate", "1000");
        ClientQuotas q = new ClientQuotas(() -> quotas, time);
        // a full bucket (one second's worth) passes at once
        assertThat(q.record(ClientQuotas.Kind.PRODUCE, "User:ANONYMOUS", "app", 999)).isZero();
        // 2,999 bytes in debt at 1,000/s: three seconds
        assertThat(q.record(ClientQuotas.Kind.PRODUCE, "User:ANONYMOUS", "app", 3000)).isBetween(2999L, 3001L);
        time.advance(1000);
        assertThat(q.record(ClientQuotas.Kind.PRODUCE, "User:ANONYMOUS", "app", 0)).isBetween(1999L, 2001L);
        time.advance(2100);
        assertThat(q.record(ClientQuotas.Kind.PRODUCE, "User:ANONYMOUS", "app", 0)).isZero();
        // another client id has no quota here; a fetch is not a produce
        assertThat(q.record(ClientQuotas.Kind.PRODUCE, "User:ANONYMOUS", "other", 1_000_000)).isZero();
        assertThat(q.record(ClientQuotas.Kind.FETCH, "User:ANONYMOUS", "app", 1_000_000)).isZero();
    }

    @Test
    void aThrottleIsCappedSoThatOneAnswerNeverWaitsPastTheClientsTimeout() {
        ManualTime time = new ManualTime();
        MetadataImage quotas = image("user", "alice", "consumer_byte_rate", "10");
        ClientQuotas q = new ClientQuotas(() -> quotas, time);
        assertThat(q.record(ClientQuotas.Kind.FETCH, "User:alice", "", 1_000_000)).isEqualTo(ClientQuotas.MAX_THROTTLE_MS);
    }
}
