package io.raftline.client.common;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An immutable snapshot of cluster metadata: brokers, and the partitions of the topics the client asked about.
 * A new snapshot replaces the old one on every metadata refresh; readers never see a half-updated view.
 */
public final class Cluster {

    private final String clusterId;
    private final Node controller;
    private final Map<Integer, Node> nodesById;
    private final Map<String, List<PartitionInfo>> partitionsByTopic;
    private final Map<String, List<PartitionInfo>> availableByTopic;
    private final Map<TopicPartition, PartitionInfo> byPartition;
    private final Map<String, String> topicIds;
    private final Set<String> internalTopics;

    /** Builds a snapshot; {@code partitions} may be in any order. */
    public Cluster(String clusterId, Collection<Node> nodes, Collection<PartitionInfo> partitions, Node controller,
                   Map<String, String> topicIds, Set<String> internalTopics) {
        this.clusterId = clusterId;
        this.controller = controller;
        Map<Integer, Node> n = new HashMap<>();
        for (Node node : nodes) {
            n.put(node.id(), node);
        }
        this.nodesById = Collections.unmodifiableMap(n);
        Map<String, List<PartitionInfo>> byTopic = new HashMap<>();
        Map<TopicPartition, PartitionInfo> byTp = new HashMap<>();
        for (PartitionInfo p : partitions) {
            byTopic.computeIfAbsent(p.topic(), t -> new ArrayList<>()).add(p);
            byTp.put(p.topicPartition(), p);
        }
        Map<String, List<PartitionInfo>> sorted = new HashMap<>();
        Map<String, List<PartitionInfo>> available = new HashMap<>();
        byTopic.forEach((topic, list) -> {
            list.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
            sorted.put(topic, List.copyOf(list));
            available.put(topic, list.stream().filter(p -> p.leader() != null).toList());
        });
        this.partitionsByTopic = Collections.unmodifiableMap(sorted);
        this.availableByTopic = Collections.unmodifiableMap(available);
        this.byPartition = Collections.unmodifiableMap(byTp);
        this.topicIds = Map.copyOf(topicIds);
        this.internalTopics = Set.copyOf(internalTopics);
    }

    /** A snapshot that knows only the bootstrap addresses. */
    public static Cluster bootstrap(List<Node> bootstrapNodes) {
        return new Cluster(null, bootstrapNodes, List.of(), null, Map.of(), Set.of());
    }

    /** The cluster id, or null before the first metadata answer. */
    public String clusterId() {
        return clusterId;
    }

    /** The active controller, or null when unknown. */
    public Node controller() {
        return controller;
    }

    /** Every known broker. */
    public Collection<Node> nodes() {
        return nodesById.values();
    }

    /** The broker with this id, or null. */
    public Node nodeById(int id) {
        return nodesById.get(id);
    }

    /** The partitions of {@code topic}, sorted by number; empty when the topic is not known. */
    public List<PartitionInfo> partitionsForTopic(String topic) {
        return partitionsByTopic.getOrDefault(topic, List.of());
    }

    /** The partitions of {@code topic} that have a leader. */
    public List<PartitionInfo> availablePartitionsForTopic(String topic) {
        return availableByTopic.getOrDefault(topic, List.of());
    }

    /** The partition count of {@code topic}, or null when the topic is not known. */
    public Integer partitionCountForTopic(String topic) {
        List<PartitionInfo> list = partitionsByTopic.get(topic);
        return list == null ? null : list.size();
    }

    /** One partition's metadata, or null. */
    public PartitionInfo partition(TopicPartition tp) {
        return byPartition.get(tp);
    }

    /** The leader of {@code tp}, or null when it has none or is unknown. */
    public Node leaderFor(TopicPartition tp) {
        PartitionInfo p = byPartition.get(tp);
        return p == null ? null : p.leader();
    }

    /** The topics this snapshot knows. */
    public Set<String> topics() {
        return partitionsByTopic.keySet();
    }

    /** The topic's id (22-char URL-safe base64), or null. */
    public String topicId(String topic) {
        return topicIds.get(topic);
    }

    /** The internal topics (such as {@code __consumer_offsets}). */
    public Set<String> internalTopics() {
        return internalTopics;
    }
}
