package io.raftline.client.consumer.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor.Assignment;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor.GroupSubscription;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor.Subscription;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Small worked examples with the expected assignments written out. */
class AssignorExamplesTest {

    private static TopicPartition tp(String t, int p) {
        return new TopicPartition(t, p);
    }

    private static GroupSubscription equalSubscriptions(List<String> topics, String... members) {
        Map<String, Subscription> subs = new HashMap<>();
        for (String m : members) {
            subs.put(m, new Subscription(topics));
        }
        return new GroupSubscription(subs);
    }

    private static Map<String, List<TopicPartition>> partitions(ConsumerPartitionAssignor.GroupAssignment a) {
        Map<String, List<TopicPartition>> out = new HashMap<>();
        a.assignments().forEach((m, x) -> out.put(m, x.partitions()));
        return out;
    }

    @Test
    void rangeGivesConsecutiveRangesPerTopic() {
        var a = new RangeAssignor().assign(Map.of("t", 7, "u", 2), equalSubscriptions(List.of("t", "u"), "c1", "c2", "c3"));
        assertThat(partitions(a)).isEqualTo(Map.of(
            "c1", List.of(tp("t", 0), tp("t", 1), tp("t", 2), tp("u", 0)),
            "c2", List.of(tp("t", 3), tp("t", 4), tp("u", 1)),
            "c3", List.of(tp("t", 5), tp("t", 6))));
    }

    @Test
    void threeMembersOnSixPartitionsGetTwoEachWithEveryAssignor() {
        for (String name : List.of("range", "roundrobin", "sticky", "cooperative-sticky")) {
            var a = ConsumerPartitionAssignor.forName(name).assign(Map.of("t", 6), equalSubscriptions(List.of("t"), "a", "b", "c"));
            assertThat(a.assignments().values()).as(name).allSatisfy(x -> assertThat(x.partitions()).hasSize(2));
        }
    }

    @Test
    void roundRobinDealsInTurnSkippingNonSubscribers() {
        Map<String, Subscription> subs = Map.of("a", new Subscription(List.of("t", "u")), "b", new Subscription(List.of("t")));
        var a = new RoundRobinAssignor().assign(Map.of("t", 3, "u", 2), new GroupSubscription(subs));
        assertThat(partitions(a)).isEqualTo(Map.of(
            "a", List.of(tp("t", 0), tp("t", 2), tp("u", 0), tp("u", 1)),
            "b", List.of(tp("t", 1))));
    }

    @Test
    void moreMembersThanPartitionsLeavesTheExtraOnesIdle() {
        var a = new RangeAssignor().assign(Map.of("t", 2), equalSubscriptions(List.of("t"), "a", "b", "c"));
        assertThat(partitions(a).get("c")).isEmpty();
        var s = new StickyAssignor().assign(Map.of("t", 2), equalSubscriptions(List.of("t"), "a", "b", "c"));
        assertThat(s.assignments().values().stream().filter(x -> x.partitions().isEmpty()).count()).isEqualTo(1);
    }

    @Test
    void stickyKeepsPartitionsAcrossAnEagerRebalanceThroughItsUserData() {
        StickyAssignor a = new StickyAssignor();
        StickyAssignor b = new StickyAssignor();
        a.onAssignment(new Assignment(List.of(tp("t", 0), tp("t", 1), tp("t", 2))), 1);
        b.onAssignment(new Assignment(List.of(tp("t", 3), tp("t", 4), tp("t", 5))), 1);
        Map<String, Subscription> subs = Map.of(
            "a", new Subscription(List.of("t"), a.subscriptionUserData(null), List.of(), -1),
            "b", new Subscription(List.of("t"), b.subscriptionUserData(null), List.of(), -1),
            "c", new Subscription(List.of("t"), new StickyAssignor().subscriptionUserData(null), List.of(), -1));
        var out = partitions(a.assign(Map.of("t", 6), new GroupSubscription(subs)));
        assertThat(out.get("a")).hasSize(2).isSubsetOf(tp("t", 0), tp("t", 1), tp("t", 2));
        assertThat(out.get("b")).hasSize(2).isSubsetOf(tp("t", 3), tp("t", 4), tp("t", 5));
        assertThat(out.get("c")).hasSize(2);
    }

    @Test
    void cooperativeStickyMovesPartitionsInTwoRounds() {
        CooperativeStickyAssignor coop = new CooperativeStickyAssignor();
        Map<String, Subscription> round1 = Map.of(
            "a", new Subscription(List.of("t"), null, List.of(tp("t", 0), tp("t", 1), tp("t", 2)), 1),
            "b", new Subscription(List.of("t"), null, List.of(tp("t", 3), tp("t", 4), tp("t", 5)), 1),
            "c", new Subscription(List.of("t"), null, List.of(), -1));
        var first = partitions(coop.assign(Map.of("t", 6), new GroupSubscription(round1)));
        // a and b keep two each and give one up; c gets nothing yet.
        assertThat(first.get("a")).hasSize(2);
        assertThat(first.get("b")).hasSize(2);
        assertThat(first.get("c")).isEmpty();
        Map<String, Subscription> round2 = Map.of(
            "a", new Subscription(List.of("t"), null, first.get("a"), 2),
            "b", new Subscription(List.of("t"), null, first.get("b"), 2),
            "c", new Subscription(List.of("t"), null, List.of(), 2));
        var second = partitions(coop.assign(Map.of("t", 6), new GroupSubscription(round2)));
        assertThat(second.get("a")).isEqualTo(first.get("a"));
        assertThat(second.get("b")).isEqualTo(first.get("b"));
        assertThat(second.get("c")).hasSize(2);
    }

    @Test
    void theProtocolBytesRoundTripAndRefuseUnknownVersions() {
        Subscription s = new Subscription(List.of("a", "b"), ByteBuffer.wrap(new byte[] {1, 2}), List.of(tp("a", 3)), 7);
        assertThat(ConsumerProtocol.deserializeSubscription(ConsumerProtocol.serializeSubscription(s))).isEqualTo(s);
        Assignment x = new Assignment(List.of(tp("a", 1), tp("b", 0)), null);
        assertThat(ConsumerProtocol.deserializeAssignment(ConsumerProtocol.serializeAssignment(x))).isEqualTo(x);
        assertThat(ConsumerProtocol.deserializeAssignment(new byte[0]).partitions()).isEmpty();
        byte[] future = ConsumerProtocol.serializeAssignment(x);
        future[1] = 5;
        assertThatThrownBy(() -> ConsumerProtocol.deserializeAssignment(future)).hasMessageContaining("version 5");
        assertThatThrownBy(() -> ConsumerPartitionAssignor.forName("bogus")).isInstanceOf(IllegalArgumentException.class);
        assertThat(ConsumerPartitionAssignor.forName("org.apache.kafka.clients.consumer.CooperativeStickyAssignor").name())
            .isEqualTo("cooperative-sticky");
    }
}
