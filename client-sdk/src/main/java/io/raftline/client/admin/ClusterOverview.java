package io.raftline.client.admin;

import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.OffsetAndMetadata;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One picture of a cluster, as an operator looks at it: brokers, the metadata quorum, every topic's partitions with
 * their replicas' log offsets, and every consumer group with its lag. What the web console serves and
 * {@code raftline top} shows; the numbers are the ones {@code topics describe} and {@code groups describe} print
 * (a partition's offsets come from its leader, a group's lag is the high watermark minus the committed offset).
 *
 * <p>Taken with {@link #fetch}: a broker that does not answer within the bound leaves its replicas' offsets null,
 * a group whose coordinator does not answer carries the error instead of its members, and when the groups cannot be
 * listed at all {@code groupsError} says why (and {@code groups} is empty), so one dead broker never hides the rest
 * of the cluster.
 */
public record ClusterOverview(String clusterId, int controllerId, List<BrokerDescription> brokers, QuorumInfo quorum,
                              List<TopicView> topics, List<GroupView> groups, String groupsError) {

    public ClusterOverview {
        brokers = List.copyOf(brokers);
        topics = List.copyOf(topics);
        groups = List.copyOf(groups);
    }

    /** A topic with its partitions in partition order. */
    public record TopicView(String topic, String topicId, boolean internal, List<PartitionView> partitions) {
        public TopicView {
            partitions = List.copyOf(partitions);
        }

        public long underReplicatedCount() {
            return partitions.stream().filter(PartitionView::underReplicated).count();
        }

        public long offlineCount() {
            return partitions.stream().filter(PartitionView::offline).count();
        }
    }

    /**
     * A partition: {@code leader} -1 when it has none ({@code offline}); {@code underReplicated} when the ISR is
     * smaller than the replicas. The offsets and size are the leader's, null when it did not answer.
     */
    public record PartitionView(String topic, int partition, int leader, int leaderEpoch, List<Integer> replicas,
                                List<Integer> isr, List<Integer> osr, Long highWatermark, Long logStartOffset,
                                Long logEndOffset, Long sizeBytes, boolean underReplicated, boolean offline,
                                List<ReplicaView> replicaStates) {
        public PartitionView {
            replicas = List.copyOf(replicas);
            isr = List.copyOf(isr);
            osr = List.copyOf(osr);
            replicaStates = List.copyOf(replicaStates);
        }
    }

    /**
     * One replica of a partition: its broker's state, whether it leads or is in the ISR, and its own log offsets
     * (null when its broker did not answer); {@code lagRecords} is the leader's log end offset minus this one's.
     */
    public record ReplicaView(int brokerId, String brokerState, boolean leader, boolean inIsr, Long logEndOffset,
                              Long highWatermark, Long sizeBytes, Long lagRecords) {
    }

    /** A consumer group; {@code error} is set (and members empty) when its coordinator could not describe it. */
    public record GroupView(String group, String state, int coordinator, String protocol, List<MemberView> members,
                            List<GroupOffset> offsets, long totalLag, String error) {
        public GroupView {
            members = List.copyOf(members);
            offsets = List.copyOf(offsets);
        }
    }

    /** A member and the partitions assigned to it. */
    public record MemberView(String memberId, String clientId, String host, List<TopicPartition> assignment) {
        public MemberView {
            assignment = List.copyOf(assignment);
        }
    }

    /** A group's position in one partition: {@code committed} and {@code lag} null without a commit. */
    public record GroupOffset(String topic, int partition, Long committed, Long logEndOffset, Long lag) {
    }

    /** Every partition, topic by topic. */
    public List<PartitionView> partitions() {
        return topics.stream().flatMap(t -> t.partitions().stream()).toList();
    }

    /** The topic of that name, or null. */
    public TopicView topic(String name) {
        return topics.stream().filter(t -> t.topic().equals(name)).findFirst().orElse(null);
    }

    /** The group of that id, or null. */
    public GroupView group(String id) {
        return groups.stream().filter(g -> g.group().equals(id)).findFirst().orElse(null);
    }

    /**
     * Asks the cluster through {@code admin}. Each broker's log offsets are bounded by {@code brokerTimeout}; the
     * other calls by {@code callTimeout}. Fails (with the cause's message) only when the cluster's metadata itself
     * cannot be read.
     */
    public static ClusterOverview fetch(Admin admin, Duration brokerTimeout, Duration callTimeout) {
        DescribeClusterResult cluster = admin.describeCluster();
        List<BrokerDescription> brokers = get(admin.describeBrokers(), callTimeout);
        QuorumInfo quorum = get(admin.describeMetadataQuorum().quorumInfo(), callTimeout);
        Node controller = get(cluster.controller(), callTimeout);
        String clusterId = get(cluster.clusterId(), callTimeout);
        Set<String> names = new TreeSet<>(get(admin.listTopics(new ListTopicsOptions().listInternal(true)).names(),
            callTimeout));
        Map<String, TopicDescription> descriptions = names.isEmpty() ? Map.of()
            : get(admin.describeTopics(names).allTopicNames(), callTimeout);
        Map<Integer, String> brokerStates = new HashMap<>();
        brokers.forEach(b -> brokerStates.put(b.id(), b.state()));
        Set<Integer> live = new HashSet<>();
        get(cluster.nodes(), callTimeout).forEach(n -> live.add(n.id()));
        Map<TopicPartition, Map<Integer, ReplicaLogInfo>> logs = replicaLogs(admin, live, brokerTimeout, callTimeout);

        List<TopicView> topics = new ArrayList<>();
        for (String name : names) {
            TopicDescription d = descriptions.get(name);
            if (d != null) {
                topics.add(topicView(d, logs, brokerStates));
            }
        }
        Map<TopicPartition, Long> highWatermarks = new HashMap<>();
        for (TopicView t : topics) {
            for (PartitionView p : t.partitions()) {
                if (p.highWatermark() != null) {
                    highWatermarks.put(new TopicPartition(t.topic(), p.partition()), p.highWatermark());
                }
            }
        }
        List<GroupView> groups = List.of();
        String groupsError = null;
        try {
            groups = groups(admin, highWatermarks, callTimeout);
        } catch (IllegalStateException e) {
            groupsError = e.getMessage();
        }
        return new ClusterOverview(clusterId, controller == null ? -1 : controller.id(), brokers, quorum, topics, groups,
            groupsError);
    }

    private static Map<TopicPartition, Map<Integer, ReplicaLogInfo>> replicaLogs(Admin admin, Collection<Integer> brokers,
        Duration brokerTimeout, Duration callTimeout) {
        Map<TopicPartition, Map<Integer, ReplicaLogInfo>> out = new HashMap<>();
        if (brokers.isEmpty()) {
            return out;
        }
        DescribeLogsResult result = admin.describeLogs(brokers, brokerTimeout);
        for (CompletableFuture<List<ReplicaLogInfo>> f : result.values().values()) {
            List<ReplicaLogInfo> infos;
            try {
                infos = f.get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            for (ReplicaLogInfo r : infos) {
                out.computeIfAbsent(r.partition(), k -> new HashMap<>()).put(r.brokerId(), r);
            }
        }
        return out;
    }

    static TopicView topicView(TopicDescription d, Map<TopicPartition, Map<Integer, ReplicaLogInfo>> logs,
        Map<Integer, String> brokerStates) {
        List<PartitionView> parts = new ArrayList<>();
        for (TopicPartitionInfo p : d.partitions()) {
            Map<Integer, ReplicaLogInfo> replicaLogs = logs.getOrDefault(new TopicPartition(d.name(), p.partition()), Map.of());
            int leader = p.leader() == null ? -1 : p.leader().id();
            List<Integer> replicas = p.replicas().stream().map(Node::id).toList();
            List<Integer> isr = p.isr().stream().map(Node::id).toList();
            List<Integer> osr = replicas.stream().filter(r -> !isr.contains(r)).toList();
            ReplicaLogInfo leaderLog = leader < 0 ? null : replicaLogs.get(leader);
            if (leaderLog != null && !leaderLog.isLeader()) {
                leaderLog = null;
            }
            List<ReplicaView> states = new ArrayList<>();
            for (int r : replicas) {
                ReplicaLogInfo log = replicaLogs.get(r);
                Long lag = log == null || leaderLog == null ? null : Math.max(0, leaderLog.logEndOffset() - log.logEndOffset());
                states.add(new ReplicaView(r, brokerStates.getOrDefault(r, "unknown"), r == leader, isr.contains(r),
                    log == null ? null : log.logEndOffset(), log == null ? null : log.highWatermark(),
                    log == null ? null : log.sizeBytes(), lag));
            }
            parts.add(new PartitionView(d.name(), p.partition(), leader, p.leaderEpoch(), replicas, isr, osr,
                leaderLog == null ? null : leaderLog.highWatermark(), leaderLog == null ? null : leaderLog.logStartOffset(),
                leaderLog == null ? null : leaderLog.logEndOffset(), leaderLog == null ? null : leaderLog.sizeBytes(),
                isr.size() < replicas.size(), leader < 0, states));
        }
        parts.sort(Comparator.comparingInt(PartitionView::partition));
        return new TopicView(d.name(), d.topicId(), d.internal(), parts);
    }

    private static List<GroupView> groups(Admin admin, Map<TopicPartition, Long> highWatermarks, Duration timeout) {
        List<ConsumerGroupListing> listings = get(admin.listConsumerGroups(), timeout);
        List<String> ids = listings.stream().map(ConsumerGroupListing::groupId).toList();
        Map<String, CompletableFuture<ConsumerGroupDescription>> described = ids.isEmpty() ? Map.of()
            : admin.describeConsumerGroups(ids);
        Map<String, CompletableFuture<Map<TopicPartition, OffsetAndMetadata>>> committed = new HashMap<>();
        ids.forEach(id -> committed.put(id, admin.listConsumerGroupOffsets(id)));
        List<GroupView> out = new ArrayList<>();
        for (ConsumerGroupListing listing : listings) {
            String id = listing.groupId();
            try {
                ConsumerGroupDescription d = get(described.get(id), timeout);
                Map<TopicPartition, OffsetAndMetadata> offsets = get(committed.get(id), timeout);
                out.add(groupView(d, offsets, highWatermarks));
            } catch (IllegalStateException e) {
                out.add(new GroupView(id, listing.state(), listing.coordinator(), null, List.of(), List.of(), 0,
                    e.getMessage()));
            }
        }
        return out;
    }

    /** The group's rows: every partition assigned or committed, in topic-partition order, lag = HW − committed. */
    static GroupView groupView(ConsumerGroupDescription d, Map<TopicPartition, OffsetAndMetadata> offsets,
        Map<TopicPartition, Long> highWatermarks) {
        Set<TopicPartition> rows = new TreeSet<>(offsets.keySet());
        List<MemberView> members = new ArrayList<>();
        for (MemberDescription m : d.members()) {
            rows.addAll(m.assignment());
            members.add(new MemberView(m.memberId(), m.clientId(), m.host(), m.assignment()));
        }
        List<GroupOffset> out = new ArrayList<>();
        long total = 0;
        for (TopicPartition tp : rows) {
            OffsetAndMetadata c = offsets.get(tp);
            Long committed = c == null ? null : c.offset();
            Long end = highWatermarks.get(tp);
            Long lag = committed == null || end == null ? null : Math.max(0, end - committed);
            total += lag == null ? 0 : lag;
            out.add(new GroupOffset(tp.topic(), tp.partition(), committed, end, lag));
        }
        return new GroupView(d.groupId(), d.state(), d.coordinator() == null ? -1 : d.coordinator().id(), d.protocol(),
            members, out, total, null);
    }

    private static <T> T get(CompletableFuture<T> future, Duration timeout) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalStateException(cause.getMessage() == null ? cause.toString() : cause.getMessage(), cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no answer within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
