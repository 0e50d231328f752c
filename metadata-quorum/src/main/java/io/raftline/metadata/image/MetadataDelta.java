package io.raftline.metadata.image;

import io.raftline.common.Uuid;
import io.raftline.acl.AclIndex;
import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.metadata.BrokerState;
import io.raftline.protocol.metadata.BrokerStateRecord;
import io.raftline.protocol.metadata.ConfigRecord;
import io.raftline.protocol.metadata.ControllerChangeRecord;
import io.raftline.protocol.metadata.Endpoint;
import io.raftline.protocol.metadata.MetadataBatch;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.PartitionChangeRecord;
import io.raftline.protocol.metadata.PartitionRecord;
import io.raftline.protocol.metadata.RegisterBrokerRecord;
import io.raftline.protocol.metadata.TopicRecord;
import io.raftline.protocol.metadata.UnregisterBrokerRecord;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.pcollections.TreePMap;

/**
 * What one or more applied entries changed, and the image they lead to. {@link #replay} records one at a
 * time onto a working copy of the base image; {@link #apply} freezes the result. Applying is a pure function of
 * (base image, records, index): no clock, no randomness, no I/O. A record that does not fit the image (a
 * partition of an unknown topic, a state change for a stale broker epoch, a newer record version) is a broken
 * invariant: the writer validated against the same image, so replay fails loudly rather than guess.
 *
 * <p>One writer: a delta is used by one thread and discarded after {@link #apply}.
 */
public final class MetadataDelta {

    /** A before/after pair; {@code before} is null for something created, {@code after} null when removed. */
    public record Change<T>(T before, T after) {
    }

    private final MetadataImage base;
    // The image's persistent maps, replaced by each change (which shares all but the path it touches).
    private TreePMap<String, Integer> features;
    private int controllerId;
    private int controllerEpoch;
    private Endpoint controllerEndpoint;
    private long nextProducerId;
    private TreePMap<Integer, BrokerRegistration> brokers;
    private TreePMap<Uuid, TopicImage> topics;
    private TreePMap<String, Uuid> topicNames;
    private TreePMap<String, String> collisionKeys;
    private TreePMap<ConfigResource, Map<String, String>> configs;
    private TreePMap<Integer, String> voterDirectories;
    private TreePMap<Integer, MetadataImage.BrokerLoad> brokerLoads;
    /** The base's ACLs until an ACL record comes, then a copy of them being edited. */
    private Set<AclBinding> acls;
    private boolean aclsCopied;
    /** Null until a SCRAM record comes: most entries do not touch the users. */
    private ScramUsers.Builder scramUsers;

    private final Map<Uuid, TopicImage> createdTopics = new LinkedHashMap<>();
    /**
     * The partitions of the topics this delta changed, folded into {@link #topics} once, at {@link #apply}, rather
     * than a new topic image per partition record.
     */
    private final Map<Uuid, TreePMap<Integer, PartitionRegistration>> editedPartitions = new HashMap<>();
    private final Map<Uuid, TopicImage> removedTopics = new LinkedHashMap<>();
    private final Map<TopicIdPartition, PartitionRegistration> partitionsBefore = new LinkedHashMap<>();
    private final Map<Integer, BrokerRegistration> brokersBefore = new LinkedHashMap<>();
    private final Set<ConfigResource> changedConfigs = new LinkedHashSet<>();
    private boolean controllerChanged;
    private boolean producerIdsChanged;
    private boolean featuresChanged;
    private boolean voterDirectoriesChanged;
    private boolean aclsChanged;
    private boolean scramUsersChanged;
    private MetadataImage image;

    public MetadataDelta(MetadataImage base) {
        this.base = base;
        this.features = base.featureMap();
        this.controllerId = base.controllerId();
        this.controllerEpoch = base.controllerEpoch();
        this.controllerEndpoint = base.controllerEndpoint();
        this.nextProducerId = base.nextProducerId();
        this.brokers = base.brokerMap();
        this.topics = base.topicMap();
        this.topicNames = base.topicNameMap();
        this.collisionKeys = base.collisionKeyMap();
        this.configs = base.configMap();
        this.voterDirectories = base.voterDirectoryMap();
        this.brokerLoads = base.brokerLoadMap();
        this.acls = base.acls();
    }

    /** Replays a whole batch (one Raft entry at {@code index}) onto {@code base} and applies it. */
    public static MetadataDelta replayBatch(MetadataImage base, long index, MetadataBatch batch) {
        return replayAll(base, index, batch.getRecordsList());
    }

    public static MetadataDelta replayAll(MetadataImage base, long index, List<MetadataRecord> records) {
        MetadataDelta delta = new MetadataDelta(base);
        for (MetadataRecord r : records) {
            delta.replay(r, index);
        }
        delta.apply(index);
        return delta;
    }

    /**
     * The delta between two images that are not connected by records at hand (a follower that loaded a snapshot):
     * everything that differs is reported as changed.
     */
    public static MetadataDelta diff(MetadataImage before, MetadataImage after) {
        MetadataDelta d = new MetadataDelta(before);
        after.topicsById().forEach((id, t) -> {
            TopicImage old = before.topicsById().get(id);
            if (old == null) {
                d.createdTopics.put(id, t);
            }
            t.partitions().forEach((p, reg) -> {
                PartitionRegistration was = old == null ? null : old.partition(p);
                if (!reg.equals(was)) {
                    d.partitionsBefore.put(new TopicIdPartition(id, p), was);
                }
            });
        });
        before.topicsById().forEach((id, t) -> {
            if (!after.topicsById().containsKey(id)) {
                d.removedTopics.put(id, t);
                t.partitions().forEach((p, reg) -> d.partitionsBefore.put(new TopicIdPartition(id, p), reg));
            }
        });
        Set<Integer> brokerIds = new LinkedHashSet<>(before.brokers().keySet());
        brokerIds.addAll(after.brokers().keySet());
        for (int id : brokerIds) {
            if (!Objects.equals(before.brokers().get(id), after.brokers().get(id))) {
                d.brokersBefore.put(id, before.brokers().get(id));
            }
        }
        Set<ConfigResource> resources = new LinkedHashSet<>(before.configs().keySet());
        resources.addAll(after.configs().keySet());
        for (ConfigResource r : resources) {
            if (!before.configs(r).equals(after.configs(r))) {
                d.changedConfigs.add(r);
            }
        }
        d.controllerChanged = before.controllerId() != after.controllerId() || before.controllerEpoch() != after.controllerEpoch();
        d.producerIdsChanged = before.nextProducerId() != after.nextProducerId();
        d.featuresChanged = !before.features().equals(after.features());
        d.aclsChanged = !before.acls().equals(after.acls());
        d.scramUsersChanged = !before.scramUsers().equals(after.scramUsers());
        d.image = after;
        return d;
    }

    /** Replays one record that belongs to the entry at {@code index}. */
    public void replay(MetadataRecord record, long index) {
        if (image != null) {
            throw new IllegalStateException("delta already applied");
        }
        if (record.getVersion() > MetadataImage.RECORD_VERSION) {
            throw new IllegalStateException("record version " + record.getVersion() + " is newer than this node knows ("
                + MetadataImage.RECORD_VERSION + "): " + record.getRecordCase());
        }
        switch (record.getRecordCase()) {
            case FEATURE_LEVEL -> {
                if (record.getFeatureLevel().getName().equals(MetadataImage.METADATA_VERSION)
                    && record.getFeatureLevel().getLevel() > MetadataImage.LATEST_METADATA_VERSION) {
                    throw new IllegalStateException("metadata.version " + record.getFeatureLevel().getLevel()
                        + " is newer than this node supports (" + MetadataImage.LATEST_METADATA_VERSION + ")");
                }
                features = features.plus(record.getFeatureLevel().getName(), record.getFeatureLevel().getLevel());
                featuresChanged = true;
            }
            case CONTROLLER_CHANGE -> replayControllerChange(record.getControllerChange());
            case REGISTER_BROKER -> replayRegister(record.getRegisterBroker(), index);
            case BROKER_STATE -> replayBrokerState(record.getBrokerState());
            case UNREGISTER_BROKER -> replayUnregister(record.getUnregisterBroker());
            case TOPIC -> replayTopic(record.getTopic());
            case PARTITION -> replayPartition(record.getPartition());
            case PARTITION_CHANGE -> replayPartitionChange(record.getPartitionChange());
            case REMOVE_TOPIC -> replayRemoveTopic(Uuid.fromBytes(record.getRemoveTopic().getTopicId().toByteArray()));
            case CONFIG -> replayConfig(record.getConfig());
            case PRODUCER_IDS -> {
                long next = record.getProducerIds().getNextProducerId();
                if (next < nextProducerId) {
                    throw new IllegalStateException("producer ids go back: " + nextProducerId + " -> " + next);
                }
                nextProducerId = next;
                producerIdsChanged = true;
            }
            case VOTER_DIRECTORY -> {
                voterDirectories = voterDirectories.plus(record.getVoterDirectory().getNodeId(),
                    record.getVoterDirectory().getDirectoryId());
                voterDirectoriesChanged = true;
            }
            case ACL -> {
                if (!aclsCopied) {
                    acls = AclIndex.sortedSet(acls);
                    aclsCopied = true;
                }
                boolean changed = record.getAcl().getRemoved() ? acls.remove(record.getAcl().getBinding())
                    : acls.add(record.getAcl().getBinding());
                aclsChanged |= changed;
            }
            case SCRAM_CREDENTIAL -> {
                if (scramUsers == null) {
                    scramUsers = base.scramUsers().toBuilder();
                }
                scramUsersChanged |= scramUsers.apply(record.getScramCredential());
            }
            case RECORD_NOT_SET -> throw new IllegalStateException("empty metadata record");
            default -> throw new IllegalStateException("unknown record type " + record.getRecordCase());
        }
    }

    private void replayControllerChange(ControllerChangeRecord r) {
        controllerId = r.getControllerId();
        controllerEpoch = r.getControllerEpoch();
        controllerEndpoint = r.getControllerEndpoint();
        controllerChanged = true;
    }

    private void replayRegister(RegisterBrokerRecord r, long index) {
        long epoch = r.getBrokerEpoch() != 0 ? r.getBrokerEpoch() : index;
        BrokerRegistration reg = new BrokerRegistration(r.getBrokerId(), r.getIncarnationId(), epoch, r.getEndpointsList(),
            r.getRack(), r.getFenced() ? BrokerState.FENCED : BrokerState.ACTIVE, r.getLogDirsList());
        putBroker(reg.id(), reg);
    }

    private void replayBrokerState(BrokerStateRecord r) {
        BrokerRegistration b = brokers.get(r.getBrokerId());
        if (b == null || b.epoch() != r.getBrokerEpoch()) {
            throw new IllegalStateException("broker state change for unknown broker " + r.getBrokerId() + " epoch "
                + r.getBrokerEpoch() + " (have " + b + ")");
        }
        putBroker(b.id(), b.withState(r.getState()));
    }

    private void replayUnregister(UnregisterBrokerRecord r) {
        BrokerRegistration b = brokers.get(r.getBrokerId());
        if (b == null || (r.getBrokerEpoch() != 0 && b.epoch() != r.getBrokerEpoch())) {
            throw new IllegalStateException("unregister of unknown broker " + r.getBrokerId() + " epoch " + r.getBrokerEpoch());
        }
        putBroker(b.id(), null);
    }

    private void putBroker(int id, BrokerRegistration reg) {
        if (!brokersBefore.containsKey(id)) {
            // not putIfAbsent: a broker registered in this delta is already here with null as its before
            brokersBefore.put(id, brokers.get(id));
        }
        brokers = reg == null ? brokers.minus(id) : brokers.plus(id, reg);
    }

    private void replayTopic(TopicRecord r) {
        Uuid id = Uuid.fromBytes(r.getTopicId().toByteArray());
        if (topics.containsKey(id)) {
            throw new IllegalStateException("topic id " + id + " already exists");
        }
        if (topicNames.containsKey(r.getName())) {
            throw new IllegalStateException("topic " + r.getName() + " already exists");
        }
        TopicImage t = new TopicImage(r.getName(), id, r.getInternal(), TreePMap.empty());
        topics = topics.plus(id, t);
        topicNames = topicNames.plus(t.name(), id);
        if (t.name().indexOf('.') >= 0 || t.name().indexOf('_') >= 0) {
            collisionKeys = collisionKeys.plus(MetadataImage.collisionKey(t.name()), t.name());
        }
        createdTopics.put(id, t);
    }

    private void replayPartition(PartitionRecord r) {
        Uuid id = Uuid.fromBytes(r.getTopicId().toByteArray());
        TopicImage t = requireTopic(id);
        if (partitionsOf(t).containsKey(r.getPartition())) {
            throw new IllegalStateException("partition " + t.name() + "-" + r.getPartition() + " already exists");
        }
        putPartition(t, r.getPartition(), PartitionRegistration.fromRecord(r));
    }

    private void replayPartitionChange(PartitionChangeRecord r) {
        Uuid id = Uuid.fromBytes(r.getTopicId().toByteArray());
        TopicImage t = requireTopic(id);
        PartitionRegistration before = partitionsOf(t).get(r.getPartition());
        if (before == null) {
            throw new IllegalStateException("change of unknown partition " + t.name() + "-" + r.getPartition());
        }
        putPartition(t, r.getPartition(), before.merge(r));
    }

    private void putPartition(TopicImage t, int partition, PartitionRegistration reg) {
        TreePMap<Integer, PartitionRegistration> parts = partitionsOf(t);
        TopicIdPartition tp = new TopicIdPartition(t.id(), partition);
        PartitionRegistration was = parts.get(partition);
        if (!partitionsBefore.containsKey(tp)) {
            partitionsBefore.put(tp, was);
        }
        editedPartitions.put(t.id(), parts.plus(partition, reg));
        countLoad(was, -1);
        countLoad(reg, 1);
    }

    /** Adds ({@code sign} 1) or takes away (-1) one partition's replicas and preferred leader from the loads. */
    private void countLoad(PartitionRegistration p, int sign) {
        if (p == null) {
            return;
        }
        for (int r : p.replicas()) {
            addLoad(r, sign, r == p.preferredLeader() ? sign : 0);
        }
    }

    private void addLoad(int broker, int replicas, int leaders) {
        MetadataImage.BrokerLoad now = brokerLoads.getOrDefault(broker, MetadataImage.BrokerLoad.NONE)
            .plus(replicas, leaders);
        brokerLoads = now.equals(MetadataImage.BrokerLoad.NONE) ? brokerLoads.minus(broker) : brokerLoads.plus(broker, now);
    }

    /** A topic's partitions as this delta has them so far. */
    private TreePMap<Integer, PartitionRegistration> partitionsOf(TopicImage t) {
        TreePMap<Integer, PartitionRegistration> edited = editedPartitions.get(t.id());
        return edited != null ? edited : t.partitionMap();
    }

    private TopicImage requireTopic(Uuid id) {
        TopicImage t = topics.get(id);
        if (t == null) {
            throw new IllegalStateException("unknown topic id " + id);
        }
        return t;
    }

    private void replayRemoveTopic(Uuid id) {
        TopicImage t = requireTopic(id);
        Map<Integer, PartitionRegistration> parts = partitionsOf(t);
        topics = topics.minus(id);
        topicNames = topicNames.minus(t.name());
        String key = MetadataImage.collisionKey(t.name());
        if (t.name().equals(collisionKeys.get(key))) {
            collisionKeys = collisionKeys.minus(key);
        }
        editedPartitions.remove(id);
        if (createdTopics.remove(id) == null) {
            removedTopics.put(id, base.topicsById().get(id));
        }
        for (Map.Entry<Integer, PartitionRegistration> e : parts.entrySet()) {
            countLoad(e.getValue(), -1);
            // not putIfAbsent: a partition created in this delta is already here with null as its before
            TopicIdPartition tp = new TopicIdPartition(id, e.getKey());
            if (!partitionsBefore.containsKey(tp)) {
                partitionsBefore.put(tp, e.getValue());
            }
        }
        ConfigResource resource = ConfigResource.topic(t.name());
        if (configs.containsKey(resource)) {
            configs = configs.minus(resource);
            changedConfigs.add(resource);
        }
    }

    private void replayConfig(ConfigRecord r) {
        ConfigResource resource = new ConfigResource(r.getResourceType(), r.getResourceName());
        Map<String, String> values = new TreeMap<>(configs.getOrDefault(resource, Map.of()));
        if (r.hasValue()) {
            values.put(r.getName(), r.getValue());
        } else {
            values.remove(r.getName());
        }
        configs = values.isEmpty() ? configs.minus(resource) : configs.plus(resource, Collections.unmodifiableMap(values));
        changedConfigs.add(resource);
    }

    /** Freezes the changes into the image at {@code index}; call once. */
    public MetadataImage apply(long index) {
        if (image != null) {
            throw new IllegalStateException("delta already applied");
        }
        if (index < base.index()) {
            throw new IllegalStateException("index goes back: " + base.index() + " -> " + index);
        }
        editedPartitions.forEach((id, parts) -> {
            TopicImage updated = topics.get(id).withPartitions(parts);
            topics = topics.plus(id, updated);
            createdTopics.computeIfPresent(id, (k, v) -> updated);
        });
        editedPartitions.clear();
        image = new MetadataImage(index, features, controllerId, controllerEpoch, controllerEndpoint, nextProducerId,
            brokers, topics, topicNames, collisionKeys, configs, voterDirectories,
            aclsCopied ? Collections.unmodifiableSet(acls) : acls,
            scramUsers == null ? base.scramUsers() : scramUsers.build(), brokerLoads);
        return image;
    }

    public MetadataImage base() {
        return base;
    }

    /** The image after {@link #apply}. */
    public MetadataImage image() {
        if (image == null) {
            throw new IllegalStateException("delta not applied yet");
        }
        return image;
    }

    /** Topics that exist after and did not before, as they are after. */
    public Map<Uuid, TopicImage> createdTopics() {
        return Collections.unmodifiableMap(createdTopics);
    }

    /** Topics that existed before and are gone, as they were before. */
    public Map<Uuid, TopicImage> removedTopics() {
        return Collections.unmodifiableMap(removedTopics);
    }

    /** Every partition created, changed or removed, with its registration before and after. */
    public Map<TopicIdPartition, Change<PartitionRegistration>> changedPartitions() {
        Map<TopicIdPartition, Change<PartitionRegistration>> out = new LinkedHashMap<>();
        MetadataImage after = image();
        partitionsBefore.forEach((tp, before) -> {
            PartitionRegistration now = after.partition(tp).orElse(null);
            if (!Objects.equals(before, now)) {
                out.put(tp, new Change<>(before, now));
            }
        });
        return out;
    }

    public Map<Integer, Change<BrokerRegistration>> changedBrokers() {
        Map<Integer, Change<BrokerRegistration>> out = new LinkedHashMap<>();
        MetadataImage after = image();
        brokersBefore.forEach((id, before) -> {
            BrokerRegistration now = after.brokers().get(id);
            if (!Objects.equals(before, now)) {
                out.put(id, new Change<>(before, now));
            }
        });
        return out;
    }

    public Set<ConfigResource> changedConfigs() {
        return Collections.unmodifiableSet(changedConfigs);
    }

    public boolean controllerChanged() {
        return controllerChanged;
    }

    public boolean producerIdsChanged() {
        return producerIdsChanged;
    }

    /** Whether an ACL binding was added or removed. */
    public boolean aclsChanged() {
        return aclsChanged;
    }

    /** Whether a SCRAM credential was added, replaced or removed. */
    public boolean scramUsersChanged() {
        return scramUsersChanged;
    }

    public boolean featuresChanged() {
        return featuresChanged;
    }

    /** True when no record changed anything (an entry that only moves the index). */
    public boolean isEmpty() {
        return createdTopics.isEmpty() && removedTopics.isEmpty() && partitionsBefore.isEmpty() && brokersBefore.isEmpty()
            && changedConfigs.isEmpty() && !controllerChanged && !producerIdsChanged && !featuresChanged
            && !voterDirectoriesChanged && !aclsChanged && !scramUsersChanged;
    }
}
