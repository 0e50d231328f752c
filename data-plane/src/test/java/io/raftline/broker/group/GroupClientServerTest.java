package io.raftline.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.assignor.ConsumerPartitionAssignor;
import io.raftline.client.consumer.internals.group.CommittedOffset;
import io.raftline.client.consumer.internals.group.ConsumerCoordinator;
import io.raftline.client.consumer.internals.group.GroupHost;
import io.raftline.client.consumer.internals.group.GroupMembershipConfig;
import io.raftline.client.consumer.internals.group.GroupRebalanceListener;
import io.raftline.client.errors.ApiException;
import io.raftline.common.SystemTime;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The SDK's {@link ConsumerCoordinator} against {@link GroupRpcService} over real sockets (ephemeral ports), with real
 * time and the in-memory offsets topic: a group of consumers shares partitions, rebalances when members come and go,
 * fences stale members, and survives a move of its coordinator to another broker.
 */
@Timeout(60)
class GroupClientServerTest {

    private static final String TOPIC = "t";
    private static final int PARTITIONS = 6;
    /** The topic's partition count as the members' metadata sees it; a test raises it. */
    private volatile int partitionCount = PARTITIONS;

    private final InMemoryOffsetsTopic topic = new InMemoryOffsetsTopic(4);
    private final List<Broker> brokers = new ArrayList<>();
    private final List<Member> members = new ArrayList<>();
    /** Who owns each partition according to the listeners: a partition must never have two owners. */
    private final Map<TopicPartition, String> owners = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();

    /** A broker: a coordinator behind a gRPC server. */
    private final class Broker {
        final int id;
        final ExecutorGroupScheduler scheduler = new ExecutorGroupScheduler("test-group-timer");
        final GroupCoordinator coordinator;
        final Server server;

        Broker(int id) throws IOException {
            this.id = id;
            GroupConfig config = new GroupConfig(500, 60_000, 0, 3_600_000L, 60_000L, 5000, 4096);
            coordinator = new GroupCoordinator(id, config, topic, SystemTime.INSTANCE, scheduler, Runnable::run, new SplittableRandom(id));
            coordinator.startup();
            server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(GroupRpcService.serviceDefinition(coordinator, io.raftline.broker.security.RequestAuthorizer.OFF)).build().start();
            topic.setEndpoint(id, "127.0.0.1", server.getPort());
        }

        void leadAll(int epoch) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                topic.setLeader(p, id);
                coordinator.onBecomeLeader(p, epoch);
            }
        }

        void resignAll() {
            for (int p = 0; p < topic.partitionCount(); p++) {
                coordinator.onResign(p);
            }
        }

        void close() throws InterruptedException {
            coordinator.shutdown();
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            scheduler.close();
        }
    }

    /** A consumer: the group client, a polling thread, and a listener that checks single ownership. */
    private final class Member implements GroupRebalanceListener, GroupHost {
        final String name;
        final ConsumerCoordinator client;
        final List<String> events = new CopyOnWriteArrayList<>();
        volatile boolean polling = true;
        final Thread poller;

        Member(String name, String assignor, int maxPollIntervalMs) {
            this.name = name;
            GroupMembershipConfig config = new GroupMembershipConfig("g", name, 2000, 200, maxPollIntervalMs, 5000, 50);
            client = new ConsumerCoordinator(config, this, this, List.of(ConsumerPartitionAssignor.forName(assignor)),
                SystemTime.INSTANCE);
            poller = new Thread(() -> {
                while (polling) {
                    try {
                        client.poll(100);
                        Thread.onSpinWait();
                    } catch (RuntimeException e) {
                        if (polling) {
                            events.add("error " + e);
                        }
                    }
                }
            }, "poller-" + name);
            poller.setDaemon(true);
            poller.start();
        }

        /** Stops polling without leaving: the member looks hung to the group. */
        void hang() throws InterruptedException {
            polling = false;
            poller.join();
            // A hung consumer hears of its lost partitions only at its next poll; for the checker it is gone now.
            owners.values().removeIf(name::equals);
        }

        void close() throws InterruptedException {
            hang();
            client.close(5000);
        }

        Set<TopicPartition> owned() {
            return client.assignment();
        }

        @Override
        public Set<String> subscription() {
            return Set.of(TOPIC);
        }

        @Override
        public List<Node> brokers() {
            List<Node> out = new ArrayList<>();
            brokers.forEach(b -> out.add(new Node(b.id, "127.0.0.1", b.server.getPort(), null)));
            return out;
        }

        @Override
        public Map<String, Integer> partitionCounts(Set<String> topics, long timeoutMs) {
            Map<String, Integer> out = new HashMap<>();
            if (topics.contains(TOPIC)) {
                out.put(TOPIC, partitionCount);
            }
            return out;
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            events.add("revoked " + partitions.size());
            // What applications do: commit the position of what they give up, in the current generation.
            Map<TopicPartition, CommittedOffset> offsets = new HashMap<>();
            partitions.forEach(tp -> offsets.put(tp, new CommittedOffset(100 + tp.partition())));
            try {
                client.commitSync(offsets, 5000);
            } catch (RuntimeException e) {
                events.add("error committing on revocation: " + e);
            }
            partitions.forEach(tp -> owners.remove(tp, name));
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            events.add("assigned " + partitions.size());
            partitions.forEach(tp -> {
                String before = owners.putIfAbsent(tp, name);
                if (before != null && !before.equals(name)) {
                    violations.add(tp + " assigned to " + name + " while " + before + " owns it");
                }
            });
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            events.add("lost " + partitions.size());
            partitions.forEach(tp -> owners.remove(tp, name));
        }
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        for (Member m : members) {
            m.hang();
            m.client.close(2000);
        }
        for (Broker b : brokers) {
            b.close();
        }
    }

    private Broker broker(int id) throws IOException {
        Broker b = new Broker(id);
        brokers.add(b);
        return b;
    }

    private Member member(String name, String assignor) {
        return member(name, assignor, 30_000);
    }

    private Member member(String name, String assignor, int maxPollIntervalMs) {
        Member m = new Member(name, assignor, maxPollIntervalMs);
        members.add(m);
        return m;
    }

    /** Waits until the given members, all in one generation, own every partition between them, {@code each} apiece. */
    private void awaitBalanced(List<Member> group, int... sizes) {
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
            Set<TopicPartition> all = new HashSet<>();
            List<Integer> got = new ArrayList<>();
            Set<Integer> generations = new HashSet<>();
            for (Member m : group) {
                Set<TopicPartition> mine = m.owned();
                got.add(mine.size());
                all.addAll(mine);
                generations.add(m.client.generation().generationId());
                assertThat(m.events).noneMatch(e -> e.startsWith("error"));
                assertThat(m.client.rejoinNeeded()).isFalse();
            }
            assertThat(generations).hasSize(1);
            assertThat(all).hasSize(partitionCount);
            assertThat(got).containsExactlyInAnyOrder(java.util.Arrays.stream(sizes).boxed().toArray(Integer[]::new));
        });
        assertThat(violations).isEmpty();
    }

    @Test
    void threeConsumersShareSixPartitionsAndTheRestTakeOverWhenOneLeaves() throws Exception {
        broker(1).leadAll(1);
        Member a = member("a", "range");
        Member b = member("b", "range");
        Member c = member("c", "range");
        awaitBalanced(List.of(a, b, c), 2, 2, 2);
        int generation = a.client.generation().generationId();
        c.close();
        awaitBalanced(List.of(a, b), 3, 3);
        assertThat(a.client.generation().generationId()).isGreaterThan(generation);
        // Eager: every rebalance revoked everything before assigning again.
        assertThat(a.events).contains("revoked 2", "assigned 3");
    }

    @Test
    void cooperativeMembersKeepTheirPartitionsWhileANewcomerJoins() throws Exception {
        broker(1).leadAll(1);
        // One member at a time: two members started together may or may not make the first generation together (the
        // coordinator completes a join at once with no initial rebalance delay), so a's history would depend on timing.
        Member a = member("a", "cooperative-sticky");
        awaitBalanced(List.of(a), 6);
        Set<TopicPartition> aAlone = a.owned();
        int mark = a.events.size();
        Member b = member("b", "cooperative-sticky");
        awaitBalanced(List.of(a, b), 3, 3);
        // a gave up exactly the three partitions that moved to b, and kept the rest throughout.
        assertThat(aAlone).containsAll(a.owned());
        assertThat(revocationsSince(a, mark)).containsExactly("revoked 3");

        Set<TopicPartition> aBefore = a.owned();
        Set<TopicPartition> bBefore = b.owned();
        int aMark = a.events.size();
        int bMark = b.events.size();
        Member c = member("c", "cooperative-sticky");
        awaitBalanced(List.of(a, b, c), 2, 2, 2);
        // a and b each gave up exactly one partition and never the rest.
        assertThat(aBefore).containsAll(a.owned());
        assertThat(bBefore).containsAll(b.owned());
        assertThat(revocationsSince(a, aMark)).containsExactly("revoked 1");
        assertThat(revocationsSince(b, bMark)).containsExactly("revoked 1");
        // No member was fenced on the way: nothing was lost.
        for (Member m : List.of(a, b, c)) {
            assertThat(m.events).noneMatch(e -> e.startsWith("lost"));
        }
        // ...whose offset it committed while giving it up.
        TopicPartition moved = aBefore.stream().filter(tp -> !a.owned().contains(tp)).findFirst().orElseThrow();
        assertThat(c.client.fetchCommitted(Set.of(moved), 5000)).containsEntry(moved, new CommittedOffset(100 + moved.partition()));
    }

    /** The revocations {@code m}'s listener saw after its first {@code mark} events. */
    private static List<String> revocationsSince(Member m, int mark) {
        return m.events.subList(mark, m.events.size()).stream().filter(e -> e.startsWith("revoked")).toList();
    }

    @Test
    void moreMembersThanPartitionsLeavesTheExtraIdleAndNewPartitionsTriggerARebalance() throws Exception {
        broker(1).leadAll(1);
        List<Member> group = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            group.add(member("m" + i, "roundrobin"));
        }
        awaitBalanced(group, 1, 1, 1, 1, 1, 1, 0);
        partitionCount = 8;
        awaitBalanced(group, 2, 1, 1, 1, 1, 1, 1);
    }

    @Test
    void aMemberThatStopsPollingIsRemovedAndItsPartitionsMove() throws Exception {
        broker(1).leadAll(1);
        Member a = member("a", "roundrobin", 1500);
        Member b = member("b", "roundrobin", 1500);
        awaitBalanced(List.of(a, b), 3, 3);
        b.hang();
        awaitBalanced(List.of(a), 6);
    }

    @Test
    void commitsAreFencedByGenerationAndSurviveACoordinatorMove() throws Exception {
        Broker first = broker(1);
        first.leadAll(1);
        Member a = member("a", "range");
        awaitBalanced(List.of(a), 6);
        TopicPartition p0 = new TopicPartition(TOPIC, 0);
        a.client.commitSync(Map.of(p0, new CommittedOffset(42)), 5000);
        assertThat(a.client.fetchCommitted(Set.of(p0, new TopicPartition(TOPIC, 1)), 5000))
            .isEqualTo(Map.of(p0, new CommittedOffset(42, -1, "")));

        // The coordinator moves to broker 2, which loads the offsets from the (replicated) topic.
        Broker second = broker(2);
        first.resignAll();
        second.leadAll(2);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
            assertThat(a.client.coordinator()).isNotNull().extracting(Node::id).isEqualTo(2));
        assertThat(a.client.fetchCommitted(Set.of(p0), 5000)).containsEntry(p0, new CommittedOffset(42, -1, ""));
        awaitBalanced(List.of(a), 6);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            a.client.commitSync(Map.of(p0, new CommittedOffset(43)), 5000);
            assertThat(a.client.fetchCommitted(Set.of(p0), 5000)).containsEntry(p0, new CommittedOffset(43, -1, ""));
        });

        // A member that hangs past its poll interval is fenced: its commit fails and its partitions are lost.
        Member b = member("b", "range", 1500);
        awaitBalanced(List.of(a, b), 3, 3);
        b.hang();
        awaitBalanced(List.of(a), 6);
        TopicPartition p5 = new TopicPartition(TOPIC, 5);
        assertThatThrownBy(() -> b.client.commitSync(Map.of(p5, new CommittedOffset(7)), 5000)).isInstanceOf(ApiException.class);
        // The fenced commit changed nothing: p5 still has what a committed when it gave p5 up to b.
        assertThat(a.client.fetchCommitted(Set.of(p5), 5000)).containsEntry(p5, new CommittedOffset(105));
    }
}
