package io.raftline.client.admin;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.common.SystemTime;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Cluster administration, shaped like Kafka's {@code Admin}: topics, partitions, configs, leader elections,
 * reassignments, the metadata quorum, per-replica log offsets, and consumer groups. Every call returns at once; its result holds
 * {@link java.util.concurrent.CompletableFuture}s. Retriable failures (no controller yet, a broker restarting) are
 * retried until {@code default.api.timeout.ms}; other errors fail the item's future with the typed exception from
 * {@code io.raftline.client.errors} carrying the broker's message. Thread-safe.
 */
public interface Admin extends AutoCloseable {

    /** Creates an admin client from properties (at least {@code bootstrap.servers}). */
    static Admin create(Properties props) {
        return new RaftlineAdmin(new AdminClientConfig(props), SystemTime.INSTANCE);
    }

    /** Creates an admin client from a map of configs. */
    static Admin create(Map<String, Object> conf) {
        return new RaftlineAdmin(new AdminClientConfig(conf), SystemTime.INSTANCE);
    }

    /** Creates topics; each future completes once its topic is in the committed metadata. */
    default CreateTopicsResult createTopics(Collection<NewTopic> newTopics) {
        return createTopics(newTopics, new CreateTopicsOptions());
    }

    /** Creates topics with options (validate only, timeout). */
    CreateTopicsResult createTopics(Collection<NewTopic> newTopics, CreateTopicsOptions options);

    /** Deletes topics by name. */
    DeleteTopicsResult deleteTopics(Collection<String> topics);

    /** Lists topics other than internal ones. */
    default ListTopicsResult listTopics() {
        return listTopics(new ListTopicsOptions());
    }

    /** Lists topics, internal ones if asked. */
    ListTopicsResult listTopics(ListTopicsOptions options);

    /** Describes topics: partitions, leaders, replicas, ISR. An unknown topic fails its future. */
    DescribeTopicsResult describeTopics(Collection<String> topicNames);

    /** Raises the partition count of topics. */
    CreatePartitionsResult createPartitions(Map<String, NewPartitions> newPartitions);

    /** Every registered broker with its state (active, fenced, shutting-down) and epoch, sorted by id. */
    CompletableFuture<List<BrokerDescription>> describeBrokers();

    /** Brokers, controller and cluster id. */
    DescribeClusterResult describeCluster();

    /** The configs of topics or brokers, with where each value comes from. */
    DescribeConfigsResult describeConfigs(Collection<ConfigResource> resources);

    /** Sets or deletes individual config keys, leaving the others as they are. */
    AlterConfigsResult incrementalAlterConfigs(Map<ConfigResource, Collection<AlterConfigOp>> configs);

    /** Elects leaders; {@code partitions} null means every partition. */
    ElectLeadersResult electLeaders(ElectionType electionType, Set<TopicPartition> partitions);

    /** Starts (a present target) or cancels (an empty Optional) reassignments. */
    AlterPartitionReassignmentsResult alterPartitionReassignments(Map<TopicPartition, Optional<NewPartitionReassignment>> reassignments);

    /** The reassignments in progress. */
    ListPartitionReassignmentsResult listPartitionReassignments();

    /** The Raft quorum that holds the metadata: leader, term, voters and their lag. */
    /**
     * Adds a voter to the metadata quorum (Raft membership change). The new node must already run, formatted with the
     * cluster id; {@code quorumEndpoint} is its quorum.listener.
     */
    CompletableFuture<Void> addMetadataVoter(int nodeId, String quorumEndpoint);

    /** Removes a voter from the metadata quorum. */
    CompletableFuture<Void> removeMetadataVoter(int nodeId);

    /**
     * Adds ACL bindings (all or none: one invalid binding fails the call); completes once they are committed. Each
     * broker enforces them as soon as its metadata image holds them.
     */
    CompletableFuture<Void> createAcls(Collection<io.raftline.protocol.acl.AclBinding> bindings);

    /** Removes every ACL binding that matches one of the filters; completes with the removed bindings. */
    CompletableFuture<List<io.raftline.protocol.acl.AclBinding>> deleteAcls(
        Collection<io.raftline.protocol.acl.AclFilter> filters);

    /** The ACL bindings that match the filter (one this client just added or removed included). */
    CompletableFuture<List<io.raftline.protocol.acl.AclBinding>> describeAcls(io.raftline.protocol.acl.AclFilter filter);

    /**
     * Adds or replaces SCRAM credentials and removes others (KIP-554): all or none; completes once committed. Make an
     * upsertion with {@link ScramCredentials#upsertion}, which salts and hashes the password here: it never leaves
     * this process.
     */
    CompletableFuture<Void> alterUserScramCredentials(
        Collection<io.raftline.protocol.controller.AlterUserScramCredentialsRequest.Upsertion> upsertions,
        Collection<io.raftline.protocol.controller.AlterUserScramCredentialsRequest.Deletion> deletions);

    /** The SCRAM users (no names: all) with their mechanisms and iterations; never salts or keys. */
    CompletableFuture<List<io.raftline.protocol.broker.DescribeUserScramCredentialsResponse.Credential>>
        describeUserScramCredentials(Collection<String> names);

    DescribeMetadataQuorumResult describeMetadataQuorum();

    /**
     * Log start/end offsets, high watermark and size of the replicas on the given brokers (every broker when
     * {@code brokerIds} is null), each broker bounded by {@code perBrokerTimeout} and asked once: a dead broker fails
     * only its own future, never delaying the answer beyond that bound.
     */
    DescribeLogsResult describeLogs(Collection<Integer> brokerIds, Duration perBrokerTimeout);

    /**
     * Each asked partition's replica on {@code brokerId}: its CRC32C over the batches that start at or after the
     * range's first offset and end below its second (or below that replica's high watermark when the second is
     * negative), never past its high watermark. For comparing replicas without reading another host's files.
     */
    CompletableFuture<List<ReplicaChecksum>> replicaChecksums(int brokerId, Map<TopicPartition, long[]> ranges,
        Duration timeout);


    /**
     * Deletes the records below the given offsets (as Kafka's {@code deleteRecords}): each partition's leader moves
     * its log start offset there, durably, and answers once the followers in its ISR have too, with the low watermark
     * (the least log start offset among them); {@code -1} means the high watermark. An offset above the high
     * watermark fails its partition with {@code OffsetOutOfRangeException}, an unknown topic or partition with
     * {@code UnknownTopicOrPartitionException}; a leader change is retried until {@code default.api.timeout.ms}.
     */
    DeleteRecordsResult deleteRecords(Map<TopicPartition, RecordsToDelete> recordsToDelete);

    /** Every consumer group of the cluster (each broker answers for the groups it coordinates), sorted by id. */
    CompletableFuture<List<ConsumerGroupListing>> listConsumerGroups();

    /**
     * Describes groups at their coordinators: state, protocol, coordinator, members with client id, host and
     * assignment. A group no coordinator knows fails its future with {@code GroupIdNotFoundException}.
     */
    Map<String, CompletableFuture<ConsumerGroupDescription>> describeConsumerGroups(Collection<String> groupIds);

    /** The group's committed offsets (partitions without one are absent). */
    CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> listConsumerGroupOffsets(String groupId);

    /**
     * Deletes groups with no members, with their committed offsets. A group with members fails with
     * {@code NonEmptyGroupException}, an unknown one with {@code GroupIdNotFoundException}.
     */
    Map<String, CompletableFuture<Void>> deleteConsumerGroups(Collection<String> groupIds);

    /**
     * Sets the committed offsets of a group that has no members (as {@code groups reset-offsets} does); a group with
     * active members fails with an error saying so, and nothing changes.
     */
    CompletableFuture<Void> alterConsumerGroupOffsets(String groupId, Map<TopicPartition, OffsetAndMetadata> offsets);

    /** Closes the client, waiting up to {@code timeout} for calls in progress; later calls fail. */
    void close(Duration timeout);

    /** Closes the client. */
    @Override
    default void close() {
        close(Duration.ofSeconds(30));
    }
}
