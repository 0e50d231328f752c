package io.raftline.tests.faults;

import io.raftline.client.admin.ConsumerGroupDescription;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * What a fault acts on: the campaign's cluster and hosts, the running verify workload's topic and group, and the run's
 * seeded random. The lookups read the cluster's own metadata (partition leaders, the active controller, the group's
 * coordinator).
 */
final class FaultTarget {

    final CampaignCluster campaign;
    final String topic;
    final String group;
    final SplittableRandom random;

    FaultTarget(CampaignCluster campaign, String topic, String group, SplittableRandom random) {
        this.campaign = campaign;
        this.topic = topic;
        this.group = group;
        this.random = random;
    }

    TestCluster cluster() {
        return campaign.cluster();
    }

    Hosts hosts() {
        if (campaign.hosts() == null) {
            throw new IllegalStateException("this fault needs network-namespace hosts");
        }
        return campaign.hosts();
    }

    /** Partition 0 of the run's first topic, as the metadata has it now. */
    TopicPartitionInfo partition0() throws Exception {
        return cluster().admin().describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic).partitions()
            .get(0);
    }

    /** The leader of partition 0 (waits up to 30 s for one). */
    int partitionLeader() {
        int[] leader = {-1};
        TestCluster.await(() -> {
            try {
                TopicPartitionInfo p = partition0();
                leader[0] = p.leader() == null ? -1 : p.leader().id();
            } catch (Exception e) {
                leader[0] = -1;
            }
            return leader[0] > 0;
        }, Duration.ofSeconds(30), "a leader for " + topic + "-0");
        return leader[0];
    }

    /** A follower of partition 0 in its ISR, chosen at random. */
    int follower() throws Exception {
        TopicPartitionInfo p = partition0();
        List<Integer> followers = new ArrayList<>();
        p.isr().forEach(n -> {
            if (p.leader() == null || n.id() != p.leader().id()) {
                followers.add(n.id());
            }
        });
        if (followers.isEmpty()) {
            throw new IllegalStateException(topic + "-0 has no follower in its ISR: " + p);
        }
        return followers.get(random.nextInt(followers.size()));
    }

    /** The metadata quorum's leader, the active controller. */
    int controller() {
        int[] leader = {-1};
        TestCluster.await(() -> {
            try {
                leader[0] = cluster().admin().describeMetadataQuorum().quorumInfo().get(10, TimeUnit.SECONDS).leaderId();
            } catch (Exception e) {
                leader[0] = -1;
            }
            return leader[0] > 0;
        }, Duration.ofSeconds(30), "a metadata quorum leader");
        return leader[0];
    }

    /** The coordinator of the run's consumer group. */
    int coordinator() {
        int[] id = {-1};
        TestCluster.await(() -> {
            try {
                ConsumerGroupDescription g = cluster().admin().describeConsumerGroups(List.of(group)).get(group).get(10,
                    TimeUnit.SECONDS);
                id[0] = g.coordinator() == null ? -1 : g.coordinator().id();
            } catch (Exception e) {
                id[0] = -1;
            }
            return id[0] > 0;
        }, Duration.ofSeconds(30), "a coordinator for group " + group);
        return id[0];
    }

    /** Every node id, in a seeded random order. */
    List<Integer> shuffledNodes() {
        List<Integer> ids = new ArrayList<>(cluster().nodes().stream().map(TestNode::id).toList());
        for (int i = ids.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            ids.set(j, ids.set(i, ids.get(j)));
        }
        return ids;
    }

    /** A node chosen at random. */
    int anyNode() {
        return shuffledNodes().get(0);
    }

    /** Restarts a node that was killed or stopped and waits until it serves again. */
    void restart(int id) {
        TestNode node = cluster().node(id);
        if (!node.isRunning()) {
            node.start();
        }
        awaitReady(id);
    }

    void awaitReady(int id) {
        TestNode node = cluster().node(id);
        TestCluster.await(() -> node.crashed() || node.isReady(), Duration.ofSeconds(120), "node " + id + " to be ready");
        if (node.crashed()) {
            throw new AssertionError("node " + id + " exited while starting: " + node.diagnose());
        }
    }
}
