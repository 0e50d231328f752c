package io.raftline.metadata.image;

import com.google.protobuf.ByteString;
import io.raftline.common.Uuid;
import io.raftline.acl.AclIndex;
import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.metadata.AclRecord;
import io.raftline.protocol.metadata.BrokerState;
import io.raftline.protocol.metadata.BrokerStateRecord;
import io.raftline.protocol.metadata.ConfigRecord;
import io.raftline.protocol.metadata.ControllerChangeRecord;
import io.raftline.protocol.metadata.Endpoint;
import io.raftline.protocol.metadata.FeatureLevelRecord;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.ProducerIdsRecord;
import io.raftline.protocol.metadata.TopicRecord;
import io.raftline.protocol.metadata.VoterDirectoryRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntPredicate;
import org.pcollections.TreePMap;

/**
 * The cluster metadata at one Raft index: immutable, and a pure function of the records applied to get here
 * (see {@link MetadataDelta}). Shared freely between threads. Maps are sorted so that iteration, snapshots and
 * {@link #toString()} are deterministic.
 */
public final class MetadataImage {

    public static final String METADATA_VERSION = "metadata.version";
    /** The highest metadata.version this build understands. */
    public static final int LATEST_METADATA_VERSION = 1;
    /** The record schema version written and understood by this build. */
    public static final int RECORD_VERSION = 1;

    /** How configs are ordered: by resource type, then name. */
    static final Comparator<ConfigResource> CONFIG_ORDER = Comparator
        .comparing((ConfigResource c) -> c.type().getNumber()).thenComparing(ConfigResource::name);

    public static final MetadataImage EMPTY = new MetadataImage(0, TreePMap.empty(), -1, 0,
        Endpoint.getDefaultInstance(), 0, TreePMap.empty(), TreePMap.empty(), TreePMap.empty(), TreePMap.empty(),
        TreePMap.empty(CONFIG_ORDER), TreePMap.empty(), Collections.unmodifiableSet(AclIndex.sortedSet(Set.of())),
        ScramUsers.EMPTY, TreePMap.empty());

    private final long index;
    private final TreePMap<String, Integer> features;
    private final int controllerId;
    private final int controllerEpoch;
    private final Endpoint controllerEndpoint;
    private final long nextProducerId;
    private final TreePMap<Integer, BrokerRegistration> brokers;
    private final TreePMap<Uuid, TopicImage> topicsById;
    private final TreePMap<String, Uuid> topicIdsByName;
    /** The names holding '.' or '_', by {@link #collisionKey}: what a new name may not collide with. */
    private final TreePMap<String, String> topicNamesByCollisionKey;
    private final TreePMap<ConfigResource, Map<String, String>> configs;
    private final TreePMap<Integer, String> voterDirectories;
    private final Set<AclBinding> acls;
    private final ScramUsers scramUsers;
    /** Replicas and preferred leaderships held by each broker id, over every partition: for placing new ones. */
    private final TreePMap<Integer, BrokerLoad> brokerLoads;
    /** Built on first use: most images of a cluster without ACLs never need it. */
    private volatile AclIndex aclIndex;

    /**
     * The maps are persistent: an image made from another by a few records shares everything else with it, so a
     * change costs the path it touches, not the size of the cluster. {@code acls} is an unmodifiable set in
     * {@link AclIndex#ORDER}.
     */
    MetadataImage(long index, TreePMap<String, Integer> features, int controllerId, int controllerEpoch,
                  Endpoint controllerEndpoint, long nextProducerId, TreePMap<Integer, BrokerRegistration> brokers,
                  TreePMap<Uuid, TopicImage> topicsById, TreePMap<String, Uuid> topicIdsByName,
                  TreePMap<String, String> topicNamesByCollisionKey,
                  TreePMap<ConfigResource, Map<String, String>> configs, TreePMap<Integer, String> voterDirectories,
                  Set<AclBinding> acls, ScramUsers scramUsers, TreePMap<Integer, BrokerLoad> brokerLoads) {
        this.index = index;
        this.features = features;
        this.controllerId = controllerId;
        this.controllerEpoch = controllerEpoch;
        this.controllerEndpoint = controllerEndpoint;
        this.nextProducerId = nextProducerId;
        this.brokers = brokers;
        this.topicsById = topicsById;
        this.topicIdsByName = topicIdsByName;
        this.topicNamesByCollisionKey = topicNamesByCollisionKey;
        this.configs = configs;
        this.voterDirectories = voterDirectories;
        this.acls = acls;
        this.scramUsers = scramUsers;
        this.brokerLoads = brokerLoads;
    }

    /** What a topic name is compared by for collisions: names that differ only by '.' and '_' collide. */
    public static String collisionKey(String name) {
        return name.replace('.', '_');
    }

    /** Replicas and preferred leaderships a broker id holds over all partitions. */
    public record BrokerLoad(int replicas, int preferredLeaders) {
        public static final BrokerLoad NONE = new BrokerLoad(0, 0);

        BrokerLoad plus(int replicaDelta, int leaderDelta) {
            return new BrokerLoad(replicas + replicaDelta, preferredLeaders + leaderDelta);
        }
    }

    /** The Raft index of the last entry applied to this image (0: nothing yet). */
    public long index() {
        return index;
    }

    /** The same content at a later index (Raft's own entries, which carry no records, move the index only). */
    public MetadataImage withIndex(long newIndex) {
        if (newIndex < index) {
            throw new IllegalStateException("the index of an image never goes back: " + index + " -> " + newIndex);
        }
        return new MetadataImage(newIndex, features, controllerId, controllerEpoch, controllerEndpoint,
            nextProducerId, brokers, topicsById, topicIdsByName, topicNamesByCollisionKey, configs, voterDirectories,
            acls, scramUsers, brokerLoads);
    }

    public Map<String, Integer> features() {
        return features;
    }

    public int metadataVersion() {
        return features.getOrDefault(METADATA_VERSION, 0);
    }

    /** The active controller's node id as of this image; -1 before the first controller-change record. */
    public int controllerId() {
        return controllerId;
    }

    public int controllerEpoch() {
        return controllerEpoch;
    }

    /** The controller.listener of the active controller (default instance when unknown). */
    public Endpoint controllerEndpoint() {
        return controllerEndpoint;
    }

    /** The first producer id not yet handed to any broker. */
    public long nextProducerId() {
        return nextProducerId;
    }

    public Map<Integer, BrokerRegistration> brokers() {
        return brokers;
    }

    public Optional<BrokerRegistration> broker(int id) {
        return Optional.ofNullable(brokers.get(id));
    }

    /** Whether broker {@code id} is registered and active (unfenced, not shutting down): one that can lead. */
    public boolean brokerActive(int id) {
        BrokerRegistration b = brokers.get(id);
        return b != null && b.active();
    }

    public Map<Uuid, TopicImage> topicsById() {
        return topicsById;
    }

    public Map<String, Uuid> topicIdsByName() {
        return topicIdsByName;
    }

    /** An existing topic whose name differs from {@code name} only by '.' and '_', if any. */
    public Optional<String> collidingTopic(String name) {
        String other = topicNamesByCollisionKey.get(collisionKey(name));
        return other == null || other.equals(name) ? Optional.empty() : Optional.of(other);
    }

    /** Replicas and preferred leaderships held by each broker id over all partitions (ids holding none: absent). */
    public Map<Integer, BrokerLoad> brokerLoads() {
        return brokerLoads;
    }

    /**
     * Whether a controlled shutdown of {@code brokerId} has anything to hand to another broker: a partition it leads
     * with another active broker in the ISR (the leadership can move there), or a partition another active broker
     * leads with {@code brokerId} in the ISR (the ISR can shrink before it goes). With neither, as for the last node
     * of a cluster stopped one node after the other, the controller has nothing to do, and may have no quorum left to
     * do it with.
     */
    public boolean controlledShutdownHandsOver(int brokerId) {
        IntPredicate otherActive = id -> id != brokerId && brokerActive(id);
        for (TopicImage t : topicsById.values()) {
            for (PartitionRegistration p : t.partitions().values()) {
                if (!p.isr().contains(brokerId)) {
                    continue;
                }
                boolean handsOver = p.leader() == brokerId ? p.isr().stream().anyMatch(otherActive::test)
                    : p.hasLeader() && otherActive.test(p.leader());
                if (handsOver) {
                    return true;
                }
            }
        }
        return false;
    }

    public Optional<TopicImage> topic(String name) {
        Uuid id = topicIdsByName.get(name);
        return id == null ? Optional.empty() : Optional.of(topicsById.get(id));
    }

    public Optional<TopicImage> topic(Uuid id) {
        return Optional.ofNullable(topicsById.get(id));
    }

    public Optional<PartitionRegistration> partition(TopicIdPartition tp) {
        TopicImage t = topicsById.get(tp.topicId());
        return t == null ? Optional.empty() : Optional.ofNullable(t.partition(tp.partition()));
    }

    public Map<ConfigResource, Map<String, String>> configs() {
        return configs;
    }

    /** The dynamic configs set on a resource; empty if none. */
    public Map<String, String> configs(ConfigResource resource) {
        return configs.getOrDefault(resource, Map.of());
    }

    /**
     * The directory id with which each quorum node joined the quorum (KIP-853's voter key), by node id: a node whose
     * Raft storage is empty while this holds an id for it has lost its log.
     */
    public Map<Integer, String> voterDirectories() {
        return voterDirectories;
    }

    /** The ACL bindings, in {@link AclIndex#ORDER}. */
    public Set<AclBinding> acls() {
        return acls;
    }

    /** The SCRAM users and their credentials. */
    public ScramUsers scramUsers() {
        return scramUsers;
    }

    /** The ACL bindings indexed for the authorizer. */
    public AclIndex aclIndex() {
        AclIndex index = aclIndex;
        if (index == null) {
            index = AclIndex.of(acls);
            aclIndex = index;
        }
        return index;
    }

    TreePMap<String, Integer> featureMap() {
        return features;
    }

    TreePMap<Integer, BrokerRegistration> brokerMap() {
        return brokers;
    }

    TreePMap<Uuid, TopicImage> topicMap() {
        return topicsById;
    }

    TreePMap<String, Uuid> topicNameMap() {
        return topicIdsByName;
    }

    TreePMap<String, String> collisionKeyMap() {
        return topicNamesByCollisionKey;
    }

    TreePMap<ConfigResource, Map<String, String>> configMap() {
        return configs;
    }

    TreePMap<Integer, String> voterDirectoryMap() {
        return voterDirectories;
    }

    TreePMap<Integer, BrokerLoad> brokerLoadMap() {
        return brokerLoads;
    }

    /** The records that rebuild this image from {@link #EMPTY} (applied at this image's index): for snapshots. */
    public List<MetadataRecord> toRecords() {
        List<MetadataRecord> out = new ArrayList<>();
        features.forEach((name, level) -> out.add(wrap(MetadataRecord.newBuilder()
            .setFeatureLevel(FeatureLevelRecord.newBuilder().setName(name).setLevel(level)))));
        if (controllerId >= 0) {
            out.add(wrap(MetadataRecord.newBuilder().setControllerChange(ControllerChangeRecord.newBuilder()
                .setControllerId(controllerId).setControllerEpoch(controllerEpoch)
                .setControllerEndpoint(controllerEndpoint))));
        }
        for (BrokerRegistration b : brokers.values()) {
            out.add(wrap(MetadataRecord.newBuilder().setRegisterBroker(b.toRecord())));
            if (b.state() == BrokerState.SHUTTING_DOWN) {
                out.add(wrap(MetadataRecord.newBuilder().setBrokerState(BrokerStateRecord.newBuilder()
                    .setBrokerId(b.id()).setBrokerEpoch(b.epoch()).setState(b.state()))));
            }
        }
        for (TopicImage t : topicsById.values()) {
            out.add(wrap(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName(t.name())
                .setTopicId(ByteString.copyFrom(t.id().bytes())).setInternal(t.internal()))));
            t.partitions().forEach((p, reg) ->
                out.add(wrap(MetadataRecord.newBuilder().setPartition(reg.toRecord(t.id(), p)))));
        }
        configs.forEach((resource, values) -> values.forEach((k, v) ->
            out.add(wrap(MetadataRecord.newBuilder().setConfig(ConfigRecord.newBuilder()
                .setResourceType(resource.type()).setResourceName(resource.name()).setName(k).setValue(v))))));
        if (nextProducerId > 0) {
            out.add(wrap(MetadataRecord.newBuilder().setProducerIds(ProducerIdsRecord.newBuilder()
                .setBrokerId(-1).setNextProducerId(nextProducerId))));
        }
        voterDirectories.forEach((node, dir) -> out.add(wrap(MetadataRecord.newBuilder().setVoterDirectory(
            VoterDirectoryRecord.newBuilder().setNodeId(node).setDirectoryId(dir)))));
        acls.forEach(b -> out.add(wrap(MetadataRecord.newBuilder().setAcl(AclRecord.newBuilder().setBinding(b)))));
        out.addAll(scramUsers.toRecords());
        return out;
    }

    /** Stamps the current record version on a record being built. */
    public static MetadataRecord wrap(MetadataRecord.Builder b) {
        return b.setVersion(RECORD_VERSION).build();
    }

    /** Equal content; the index is part of it. */
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof MetadataImage other)) {
            return false;
        }
        return index == other.index && controllerId == other.controllerId && controllerEpoch == other.controllerEpoch
            && nextProducerId == other.nextProducerId && features.equals(other.features)
            && controllerEndpoint.equals(other.controllerEndpoint) && brokers.equals(other.brokers)
            && topicsById.equals(other.topicsById) && configs.equals(other.configs)
            && voterDirectories.equals(other.voterDirectories) && acls.equals(other.acls)
            && scramUsers.equals(other.scramUsers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index, controllerId, controllerEpoch, nextProducerId, features, brokers, topicsById, configs,
            voterDirectories, acls, scramUsers);
    }

    @Override
    public String toString() {
        return "MetadataImage{index=" + index + ", features=" + features + ", controller=" + controllerId + "@"
            + controllerEpoch + ", nextProducerId=" + nextProducerId + ", brokers=" + brokers + ", topics="
            + topicsById + ", configs=" + configs + ", acls=" + acls.size() + ", " + scramUsers + "}";
    }
}
