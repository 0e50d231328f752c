package io.raftline.broker.group;

import com.google.protobuf.InvalidProtocolBufferException;
import io.raftline.common.Time;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.group.OffsetCommitRequest;
import io.raftline.protocol.group.OffsetCommitResponse;
import io.raftline.protocol.group.ConsumerProtocolSubscription;
import io.raftline.protocol.group.OffsetCommitValue;
import io.raftline.protocol.group.OffsetDeleteRequest;
import io.raftline.protocol.group.OffsetDeleteResponse;
import io.raftline.protocol.group.OffsetFetchRequest;
import io.raftline.protocol.group.OffsetFetchResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offsets half of the coordinator: OffsetCommit (fenced by generation, stored before cached), OffsetFetch from
 * the cache, OffsetDelete (stored, then dropped from the cache), and the expiry of the offsets of empty groups. Every
 * method runs under the coordinator's lock, for a group whose partition this coordinator has loaded.
 */
final class GroupOffsets {

    private static final Logger LOG = LoggerFactory.getLogger(GroupOffsets.class);
    /** The protocol type of consumer groups, whose subscriptions (Raftline's encoding) name their topics. */
    static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    private final GroupCoordinator coordinator;
    private final GroupConfig config;
    private final Time time;
    private final GroupMembership membership;

    GroupOffsets(GroupCoordinator coordinator, GroupConfig config, Time time, GroupMembership membership) {
        this.coordinator = coordinator;
        this.config = config;
        this.time = time;
        this.membership = membership;
    }

    void commit(OffsetCommitRequest req, CompletableFuture<OffsetCommitResponse> result) {
        String invalid = invalidCommit(req);
        if (invalid != null) {
            coordinator.complete(result, commitResponse(req, ErrorCode.INVALID_REQUEST, invalid));
            return;
        }
        Group g = coordinator.group(req.getGroupId());
        boolean outside = req.getGenerationId() < 0 && req.getMemberId().isEmpty();
        if (g == null) {
            if (!outside) {
                coordinator.complete(result, commitResponse(req, ErrorCode.ILLEGAL_GENERATION,
                    "group " + req.getGroupId() + " has no generation"));
                return;
            }
            g = coordinator.createGroup(req.getGroupId());
        }
        ErrorCode fence = fenceCommit(g, req, outside);
        if (fence != ErrorCode.NONE) {
            coordinator.complete(result, commitResponse(req, fence, ""));
            return;
        }
        long now = time.milliseconds();
        List<GroupRecords.KeyValue> records = new ArrayList<>();
        // In record order: the i-th record of the batch is committed.get(i).
        List<Group.TopicPartitionKey> keys = new ArrayList<>();
        List<OffsetCommitRequest.Partition> committed = new ArrayList<>();
        for (OffsetCommitRequest.Topic t : req.getTopicsList()) {
            for (OffsetCommitRequest.Partition p : t.getPartitionsList()) {
                OffsetCommitValue v = OffsetCommitValue.newBuilder().setOffset(p.getCommittedOffset())
                    .setLeaderEpoch(p.getCommittedLeaderEpoch()).setMetadata(p.getMetadata()).setCommitTimestampMs(now).build();
                records.add(GroupRecords.offsetCommit(g.groupId, t.getName(), p.getPartition(), v));
                keys.add(new Group.TopicPartitionKey(t.getName(), p.getPartition()));
                committed.add(p);
            }
        }
        if (records.isEmpty()) {
            coordinator.complete(result, commitResponse(req, ErrorCode.NONE, ""));
            return;
        }
        Group group = g;
        coordinator.append(g.offsetsPartition, records, (code, baseOffset) -> {
            if (code == ErrorCode.NONE && coordinator.isCurrent(group)) {
                for (int i = 0; i < keys.size(); i++) {
                    OffsetCommitRequest.Partition p = committed.get(i);
                    CommittedOffset stored = new CommittedOffset(p.getCommittedOffset(), p.getCommittedLeaderEpoch(),
                        p.getMetadata(), now, baseOffset + i);
                    group.offsets.merge(keys.get(i), stored, CommittedOffset::latest);
                }
            }
            coordinator.complete(result, commitResponse(req, code, ""));
        });
    }

    private String invalidCommit(OffsetCommitRequest req) {
        for (OffsetCommitRequest.Topic t : req.getTopicsList()) {
            if (t.getName().isEmpty()) {
                return "a topic name is required";
            }
            for (OffsetCommitRequest.Partition p : t.getPartitionsList()) {
                if (p.getPartition() < 0 || p.getCommittedOffset() < 0) {
                    return "partition " + p.getPartition() + " offset " + p.getCommittedOffset() + " of " + t.getName()
                        + ": partitions and offsets cannot be negative";
                }
                if (p.getMetadata().length() > config.offsetMetadataMaxBytes()) {
                    return "offset metadata of " + t.getName() + "-" + p.getPartition() + " is longer than "
                        + config.offsetMetadataMaxBytes();
                }
            }
        }
        return null;
    }

    private ErrorCode fenceCommit(Group g, OffsetCommitRequest req, boolean outside) {
        if (g.is(GroupState.DEAD) || g.deleting) {
            return ErrorCode.COORDINATOR_NOT_AVAILABLE;
        }
        if (outside && g.is(GroupState.EMPTY)) {
            return ErrorCode.NONE;
        }
        if (g.is(GroupState.COMPLETING_REBALANCE)) {
            return ErrorCode.REBALANCE_IN_PROGRESS;
        }
        Member m = g.members.get(req.getMemberId());
        if (m == null) {
            return ErrorCode.UNKNOWN_MEMBER_ID;
        }
        if (req.getGenerationId() != g.generationId) {
            return ErrorCode.ILLEGAL_GENERATION;
        }
        // A commit is a sign of life, as in Kafka.
        membership.touch(g, m);
        return ErrorCode.NONE;
    }

    static OffsetCommitResponse commitResponse(OffsetCommitRequest req, ErrorCode code, String message) {
        OffsetCommitResponse.Builder b = OffsetCommitResponse.newBuilder().setError(GroupCoordinator.error(code, message));
        for (OffsetCommitRequest.Topic t : req.getTopicsList()) {
            OffsetCommitResponse.TopicResult.Builder tr = OffsetCommitResponse.TopicResult.newBuilder().setName(t.getName());
            for (OffsetCommitRequest.Partition p : t.getPartitionsList()) {
                tr.addPartitions(OffsetCommitResponse.PartitionResult.newBuilder().setPartition(p.getPartition())
                    .setError(GroupCoordinator.error(code, "")));
            }
            b.addTopics(tr);
        }
        return b.build();
    }

    OffsetFetchResponse fetch(Group g, OffsetFetchRequest req) {
        OffsetFetchResponse.Builder b = OffsetFetchResponse.newBuilder();
        b.setError(GroupCoordinator.error(ErrorCode.NONE, ""));
        Map<Group.TopicPartitionKey, CommittedOffset> offsets = g == null ? Map.of() : g.offsets;
        if (req.getTopicsCount() == 0) {
            String current = null;
            OffsetFetchResponse.TopicResult.Builder tr = null;
            for (var e : new TreeMap<>(offsets).entrySet()) {
                if (!e.getKey().topic().equals(current)) {
                    if (tr != null) {
                        b.addTopics(tr);
                    }
                    current = e.getKey().topic();
                    tr = OffsetFetchResponse.TopicResult.newBuilder().setName(current);
                }
                tr.addPartitions(fetched(e.getKey().partition(), e.getValue()));
            }
            if (tr != null) {
                b.addTopics(tr);
            }
        } else {
            for (OffsetFetchRequest.Topic t : req.getTopicsList()) {
                OffsetFetchResponse.TopicResult.Builder tr = OffsetFetchResponse.TopicResult.newBuilder().setName(t.getName());
                for (int p : t.getPartitionsList()) {
                    tr.addPartitions(fetched(p, offsets.get(new Group.TopicPartitionKey(t.getName(), p))));
                }
                b.addTopics(tr);
            }
        }
        return b.build();
    }

    private static OffsetFetchResponse.PartitionResult fetched(int partition, CommittedOffset o) {
        OffsetFetchResponse.PartitionResult.Builder b = OffsetFetchResponse.PartitionResult.newBuilder()
            .setPartition(partition).setError(GroupCoordinator.error(ErrorCode.NONE, ""));
        if (o == null) {
            return b.setCommittedOffset(-1).setCommittedLeaderEpoch(-1).build();
        }
        return b.setCommittedOffset(o.offset()).setCommittedLeaderEpoch(o.leaderEpoch()).setMetadata(o.metadata()).build();
    }

    /**
     * Deletes committed offsets of {@code g} (Kafka's OffsetDelete): an unknown group is GROUP_ID_NOT_FOUND. While the
     * group has members, a partition of a topic one of them subscribes to is refused on its own
     * (GROUP_SUBSCRIBED_TO_TOPIC) and the others go; a group whose members' subscriptions cannot be read (not the
     * consumer protocol) is refused whole with NON_EMPTY_GROUP. Tombstones are written first; the cache drops the
     * offsets once they are stored, keeping any committed again meanwhile (its record follows the tombstone).
     */
    void delete(Group g, OffsetDeleteRequest req, CompletableFuture<OffsetDeleteResponse> result) {
        if (g == null || g.is(GroupState.DEAD) || g.deleting) {
            coordinator.complete(result, deleteResponse(req, ErrorCode.GROUP_ID_NOT_FOUND, Map.of()));
            return;
        }
        Set<String> subscribed = g.members.isEmpty() ? Set.of() : subscribedTopics(g);
        if (subscribed == null) {
            coordinator.complete(result, deleteResponse(req, ErrorCode.NON_EMPTY_GROUP, Map.of()));
            return;
        }
        Map<Group.TopicPartitionKey, ErrorCode> refused = new HashMap<>();
        Map<Group.TopicPartitionKey, CommittedOffset> deleted = new HashMap<>();
        List<GroupRecords.KeyValue> tombstones = new ArrayList<>();
        for (OffsetDeleteRequest.Topic t : req.getTopicsList()) {
            for (int p : t.getPartitionsList()) {
                Group.TopicPartitionKey key = new Group.TopicPartitionKey(t.getName(), p);
                CommittedOffset o = g.offsets.get(key);
                if (subscribed.contains(t.getName())) {
                    refused.put(key, ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC);
                } else if (o != null && deleted.put(key, o) == null) {
                    tombstones.add(GroupRecords.offsetCommit(g.groupId, t.getName(), p, null));
                }
            }
        }
        if (tombstones.isEmpty()) {
            coordinator.complete(result, deleteResponse(req, ErrorCode.NONE, refused));
            return;
        }
        coordinator.append(g.offsetsPartition, tombstones, code -> {
            if (code == ErrorCode.NONE && coordinator.isCurrent(g)) {
                deleted.forEach((k, o) -> g.offsets.remove(k, o));
                LOG.info("group {}: deleted {} committed offsets", g.groupId, deleted.size());
            }
            coordinator.complete(result, deleteResponse(req, code, refused));
        });
    }

    /**
     * The topics the members of {@code g} subscribe to (in the selected protocol's subscription, or in every one
     * they offered before a protocol was selected), or null when they cannot be read: a group of another protocol
     * type, or a subscription that does not parse.
     */
    static Set<String> subscribedTopics(Group g) {
        if (!CONSUMER_PROTOCOL_TYPE.equals(g.protocolType)) {
            return null;
        }
        Set<String> topics = new HashSet<>();
        for (Member m : g.members.values()) {
            for (var p : m.protocols) {
                if (g.protocolName != null && !g.protocolName.equals(p.getName())) {
                    continue;
                }
                ByteBuffer b = p.getMetadata().asReadOnlyByteBuffer();
                if (b.remaining() < 2 || b.getShort() != 0) {
                    return null;
                }
                try {
                    topics.addAll(ConsumerProtocolSubscription.parseFrom(b).getTopicsList());
                } catch (InvalidProtocolBufferException e) {
                    return null;
                }
            }
        }
        return topics;
    }

    /** The answer to {@code req}: {@code code} for the whole request and each partition, but those {@code refused}. */
    static OffsetDeleteResponse deleteResponse(OffsetDeleteRequest req, ErrorCode code,
                                               Map<Group.TopicPartitionKey, ErrorCode> refused) {
        OffsetDeleteResponse.Builder b = OffsetDeleteResponse.newBuilder().setError(GroupCoordinator.error(code, ""));
        for (OffsetDeleteRequest.Topic t : req.getTopicsList()) {
            OffsetDeleteResponse.TopicResult.Builder tr = OffsetDeleteResponse.TopicResult.newBuilder().setName(t.getName());
            for (int p : t.getPartitionsList()) {
                ErrorCode own = refused.getOrDefault(new Group.TopicPartitionKey(t.getName(), p), code);
                tr.addPartitions(OffsetDeleteResponse.PartitionResult.newBuilder().setPartition(p)
                    .setError(GroupCoordinator.error(own, own == ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC
                        ? "the group's members subscribe to topic '" + t.getName() + "'" : "")));
            }
            b.addTopics(tr);
        }
        return b.build();
    }

    /**
     * Drops the offsets of Empty groups that are older than {@code offsets.retention.minutes}, counted from the later
     * of the commit and the moment the group became empty; a group left with no offsets is deleted.
     */
    void expire() {
        long now = time.milliseconds();
        for (Group g : coordinator.groups()) {
            if (!g.is(GroupState.EMPTY) || g.deleting || !coordinator.isLoaded(g.offsetsPartition)) {
                continue;
            }
            Map<Group.TopicPartitionKey, CommittedOffset> expired = new HashMap<>();
            g.offsets.forEach((k, o) -> {
                if (now - Math.max(g.stateTimestampMs, o.commitTimestampMs()) >= config.offsetsRetentionMs()) {
                    expired.put(k, o);
                }
            });
            boolean dropGroup = expired.size() == g.offsets.size()
                && now - g.stateTimestampMs >= config.offsetsRetentionMs();
            if (expired.isEmpty() && !dropGroup) {
                continue;
            }
            List<GroupRecords.KeyValue> tombstones = new ArrayList<>();
            expired.keySet().forEach(k -> tombstones.add(GroupRecords.offsetCommit(g.groupId, k.topic(), k.partition(), null)));
            if (dropGroup) {
                tombstones.add(GroupRecords.groupMetadata(g.groupId, null));
                g.deleting = true;
            }
            coordinator.append(g.offsetsPartition, tombstones, code -> {
                if (!coordinator.isCurrent(g)) {
                    return;
                }
                g.deleting = false;
                if (code != ErrorCode.NONE) {
                    LOG.warn("group {}: expiring {} offsets failed with {}", g.groupId, expired.size(), code);
                    return;
                }
                // Keep an offset committed again meanwhile (its record came after the tombstone).
                expired.forEach((k, o) -> g.offsets.remove(k, o));
                if (dropGroup && g.offsets.isEmpty() && g.is(GroupState.EMPTY)) {
                    coordinator.removeGroup(g);
                }
                LOG.info("group {}: expired {} offsets{}", g.groupId, expired.size(), dropGroup ? "; group removed" : "");
            });
        }
    }
}
