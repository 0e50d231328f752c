package io.raftline.metadata.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.raftline.common.Uuid;
import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.PatternType;
import io.raftline.protocol.acl.Permission;
import io.raftline.protocol.acl.ResourceType;
import io.raftline.protocol.metadata.AclRecord;
import io.raftline.protocol.metadata.BrokerState;
import io.raftline.protocol.metadata.BrokerStateRecord;
import io.raftline.protocol.metadata.ConfigRecord;
import io.raftline.protocol.metadata.ConfigResourceType;
import io.raftline.protocol.metadata.ControllerChangeRecord;
import io.raftline.protocol.metadata.Endpoint;
import io.raftline.protocol.metadata.FeatureLevelRecord;
import io.raftline.protocol.metadata.MetadataBatch;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.PartitionChangeRecord;
import io.raftline.protocol.metadata.PartitionRecord;
import io.raftline.protocol.metadata.ProducerIdsRecord;
import io.raftline.protocol.metadata.RegisterBrokerRecord;
import io.raftline.protocol.metadata.RemoveTopicRecord;
import io.raftline.protocol.metadata.TopicRecord;
import io.raftline.protocol.metadata.UnregisterBrokerRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MetadataImageReplayTest {

    record Entry(long index, MetadataBatch batch) {
    }

    private static final long SEED = 20240611L;

    /** A recorded log touching every record type; entry indexes have gaps as Raft's own entries do. */
    static List<Entry> recordedLog() {
        SplittableRandom random = new SplittableRandom(SEED);
        Uuid orders = Uuid.random(random);
        Uuid clicks = Uuid.random(random);
        List<Entry> log = new ArrayList<>();
        long index = 1;
        log.add(new Entry(index += 2, batch(
            rec(MetadataRecord.newBuilder().setFeatureLevel(FeatureLevelRecord.newBuilder().setName("metadata.version").setLevel(1))),
            rec(MetadataRecord.newBuilder().setControllerChange(ControllerChangeRecord.newBuilder().setControllerId(1)
                .setControllerEpoch(1).setControllerEndpoint(Endpoint.newBuilder().setName("controller")
                    .setHost("127.0.0.1").setPort(9094)))))));
        for (int b = 1; b <= 3; b++) {
            log.add(new Entry(++index, batch(rec(MetadataRecord.newBuilder().setRegisterBroker(RegisterBrokerRecord.newBuilder()
                .setBrokerId(b).setIncarnationId("inc-" + b).setRack(b == 3 ? "" : "r" + b).setFenced(true)
                .addEndpoints(Endpoint.newBuilder().setName("broker").setHost("127.0.0.1").setPort(9000 + b)))))));
        }
        for (int b = 1; b <= 3; b++) {
            long epoch = 3 + b;
            log.add(new Entry(++index, batch(rec(MetadataRecord.newBuilder().setBrokerState(BrokerStateRecord.newBuilder()
                .setBrokerId(b).setBrokerEpoch(epoch).setState(BrokerState.ACTIVE))))));
        }
        log.add(new Entry(++index, batch(
            rec(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("orders").setTopicId(bs(orders)))),
            partition(orders, 0, List.of(1, 2, 3)),
            partition(orders, 1, List.of(2, 3, 1)),
            rec(MetadataRecord.newBuilder().setConfig(ConfigRecord.newBuilder().setResourceType(ConfigResourceType.TOPIC)
                .setResourceName("orders").setName("retention.ms").setValue("1000"))))));
        log.add(new Entry(index += 3, batch(
            rec(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("__consumer_offsets")
                .setTopicId(bs(clicks)).setInternal(true))),
            partition(clicks, 0, List.of(3, 1, 2)))));
        log.add(new Entry(++index, batch(rec(MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord.newBuilder()
            .setTopicId(bs(orders)).setPartition(0).setIsr(PartitionRegistration.intList(List.of(1, 2)))
            .setReason("isr shrink"))))));
        log.add(new Entry(++index, batch(rec(MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord.newBuilder()
            .setTopicId(bs(orders)).setPartition(0).setLeader(2).setIsr(PartitionRegistration.intList(List.of(2)))
            .setBelowMinIsr(true))))));
        log.add(new Entry(++index, batch(rec(MetadataRecord.newBuilder().setProducerIds(ProducerIdsRecord.newBuilder()
            .setBrokerId(1).setBrokerEpoch(4).setNextProducerId(1000))))));
        log.add(new Entry(++index, batch(
            rec(MetadataRecord.newBuilder().setConfig(ConfigRecord.newBuilder().setResourceType(ConfigResourceType.TOPIC)
                .setResourceName("orders").setName("retention.ms"))),
            rec(MetadataRecord.newBuilder().setConfig(ConfigRecord.newBuilder().setResourceType(ConfigResourceType.BROKER)
                .setResourceName("").setName("log.retention.ms").setValue("5000"))))));
        log.add(new Entry(++index, batch(rec(MetadataRecord.newBuilder().setBrokerState(BrokerStateRecord.newBuilder()
            .setBrokerId(3).setBrokerEpoch(6).setState(BrokerState.SHUTTING_DOWN))))));
        log.add(new Entry(++index, batch(rec(MetadataRecord.newBuilder().setRemoveTopic(RemoveTopicRecord.newBuilder()
            .setTopicId(bs(orders)))))));
        log.add(new Entry(++index, batch(rec(MetadataRecord.newBuilder().setUnregisterBroker(UnregisterBrokerRecord.newBuilder()
            .setBrokerId(3).setBrokerEpoch(6))))));
        log.add(new Entry(++index, batch(rec(MetadataRecord.newBuilder().setControllerChange(ControllerChangeRecord.newBuilder()
            .setControllerId(2).setControllerEpoch(2))))));
        log.add(new Entry(++index, batch(acl(APP_WRITE, false), acl(APP_READ, false), acl(APP_WRITE, false))));
        log.add(new Entry(++index, batch(acl(APP_READ, true), acl(APP_READ, true))));
        return log;
    }

    static final AclBinding APP_WRITE = AclBinding.newBuilder().setPrincipal("User:app").setHost("*")
        .setResourceType(ResourceType.TOPIC).setResourceName("orders").setPatternType(PatternType.LITERAL)
        .setOperation(Operation.WRITE).setPermission(Permission.ALLOW).build();
    static final AclBinding APP_READ = APP_WRITE.toBuilder().setResourceType(ResourceType.GROUP).setResourceName("billing")
        .setOperation(Operation.READ).build();

    /** An ACL added (twice adds it once) or removed (removing one that is gone changes nothing). */
    static MetadataRecord acl(AclBinding binding, boolean removed) {
        return rec(MetadataRecord.newBuilder().setAcl(AclRecord.newBuilder().setBinding(binding).setRemoved(removed)));
    }

    static MetadataImage replay(List<Entry> entries) {
        MetadataImage image = MetadataImage.EMPTY;
        for (Entry e : entries) {
            image = MetadataDelta.replayBatch(image, e.index(), e.batch()).image();
        }
        return image;
    }

    @Test
    void everyPrefixReplaysToTheSameImageAndRoundTripsThroughASnapshot() {
        System.out.println("seed " + SEED);
        List<Entry> log = recordedLog();
        MetadataImage incremental = MetadataImage.EMPTY;
        for (int k = 0; k <= log.size(); k++) {
            if (k > 0) {
                incremental = MetadataDelta.replayBatch(incremental, log.get(k - 1).index(), log.get(k - 1).batch()).image();
            }
            MetadataImage fresh = replay(log.subList(0, k));
            MetadataImage again = replay(log.subList(0, k));
            assertThat(fresh).isEqualTo(incremental).isEqualTo(again);
            assertThat(fresh.hashCode()).isEqualTo(again.hashCode());
            MetadataImage fromSnapshot = MetadataDelta.replayAll(MetadataImage.EMPTY, fresh.index(), fresh.toRecords()).image();
            assertThat(fromSnapshot).as("snapshot of prefix %d", k).isEqualTo(fresh);
        }
    }

    @Test
    void imagesShareTheirMapsWithoutChangingEarlierImagesAndKeepTheirCountsExact() {
        List<Entry> log = new ArrayList<>(recordedLog());
        long index = log.get(log.size() - 1).index();
        Uuid dotted = Uuid.random(new SplittableRandom(SEED + 1));
        log.add(new Entry(++index, batch(
            rec(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("a.b").setTopicId(bs(dotted)))),
            partition(dotted, 0, List.of(1, 2)), partition(dotted, 1, List.of(2, 1)))));
        log.add(new Entry(++index, batch(rec(MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord
            .newBuilder().setTopicId(bs(dotted)).setPartition(1).setReplicas(PartitionRegistration.intList(List.of(1)))
            .setIsr(PartitionRegistration.intList(List.of(1))).setLeader(1))))));
        log.add(new Entry(++index, batch(rec(MetadataRecord.newBuilder().setRemoveTopic(RemoveTopicRecord.newBuilder()
            .setTopicId(bs(dotted)))))));
        List<MetadataImage> kept = new ArrayList<>();
        MetadataImage image = MetadataImage.EMPTY;
        kept.add(image);
        for (Entry e : log) {
            image = MetadataDelta.replayBatch(image, e.index(), e.batch()).image();
            kept.add(image);
            assertThat(image.brokerLoads()).as("loads at %d", e.index()).isEqualTo(recount(image));
            for (String name : image.topicIdsByName().keySet()) {
                assertThat(image.collidingTopic(name)).isEmpty();
            }
        }
        assertThat(kept.get(kept.size() - 3).collidingTopic("a_b")).contains("a.b");
        assertThat(kept.get(kept.size() - 2).brokerLoads()).containsEntry(1, new MetadataImage.BrokerLoad(3, 2));
        assertThat(kept.get(kept.size() - 1).collidingTopic("a_b")).isEmpty();
        for (int k = 0; k < kept.size(); k++) {
            assertThat(kept.get(k)).as("image %d after every later change", k).isEqualTo(replay(log.subList(0, k)));
        }
    }

    /** Each broker id's replicas and preferred leaderships, counted over the whole image. */
    private static java.util.Map<Integer, MetadataImage.BrokerLoad> recount(MetadataImage image) {
        java.util.Map<Integer, MetadataImage.BrokerLoad> out = new java.util.TreeMap<>();
        image.topicsById().values().forEach(t -> t.partitions().values().forEach(p -> p.replicas().forEach(r ->
            out.merge(r, new MetadataImage.BrokerLoad(1, r == p.preferredLeader() ? 1 : 0),
                (a, b) -> new MetadataImage.BrokerLoad(a.replicas() + b.replicas(),
                    a.preferredLeaders() + b.preferredLeaders())))));
        return out;
    }

    @Test
    void finalImageHoldsWhatTheLogSays() {
        MetadataImage image = replay(recordedLog());
        assertThat(image.metadataVersion()).isEqualTo(1);
        assertThat(image.controllerId()).isEqualTo(2);
        assertThat(image.controllerEpoch()).isEqualTo(2);
        assertThat(image.brokers().keySet()).containsExactly(1, 2);
        assertThat(image.broker(1).orElseThrow().epoch()).isEqualTo(4);
        assertThat(image.broker(1).orElseThrow().active()).isTrue();
        assertThat(image.topic("orders")).isEmpty();
        TopicImage offsets = image.topic("__consumer_offsets").orElseThrow();
        assertThat(offsets.internal()).isTrue();
        assertThat(offsets.partition(0).leader()).isEqualTo(3);
        assertThat(image.configs(ConfigResource.topic("orders"))).isEmpty();
        assertThat(image.configs(ConfigResource.broker(""))).containsEntry("log.retention.ms", "5000");
        assertThat(image.nextProducerId()).isEqualTo(1000);
        assertThat(image.acls()).containsExactly(APP_WRITE);
        assertThat(image.aclIndex().covering(ResourceType.TOPIC, "orders")).containsExactly(APP_WRITE);
    }

    @Test
    void aclChangesAreReportedOnlyWhenTheyChangeSomething() {
        List<Entry> log = recordedLog();
        MetadataImage before = replay(log.subList(0, log.size() - 2));
        Entry add = log.get(log.size() - 2);
        MetadataDelta added = MetadataDelta.replayBatch(before, add.index(), add.batch());
        assertThat(added.aclsChanged()).isTrue();
        assertThat(added.image().acls()).containsExactlyInAnyOrder(APP_WRITE, APP_READ);
        MetadataDelta again = MetadataDelta.replayBatch(added.image(), add.index() + 5, add.batch());
        assertThat(again.aclsChanged()).as("adding what is there").isFalse();
        assertThat(again.isEmpty()).isTrue();
    }

    @Test
    void deltaReportsWhatChanged() {
        List<Entry> log = recordedLog();
        MetadataImage before = replay(log.subList(0, 7));
        Entry createOrders = log.get(7);
        MetadataDelta delta = MetadataDelta.replayBatch(before, createOrders.index(), createOrders.batch());
        assertThat(delta.createdTopics().values()).extracting(TopicImage::name).containsExactly("orders");
        assertThat(delta.changedPartitions()).hasSize(2);
        assertThat(delta.changedPartitions().values()).allMatch(c -> c.before() == null && c.after() != null);
        assertThat(delta.changedConfigs()).containsExactly(ConfigResource.topic("orders"));

        MetadataImage beforeElection = replay(log.subList(0, 10));
        Entry election = log.get(10);
        MetadataDelta change = MetadataDelta.replayBatch(beforeElection, election.index(), election.batch());
        MetadataDelta.Change<PartitionRegistration> c = change.changedPartitions().values().iterator().next();
        assertThat(c.before().leader()).isEqualTo(1);
        assertThat(c.after().leader()).isEqualTo(2);
        assertThat(c.after().leaderEpoch()).isEqualTo(c.before().leaderEpoch() + 1);
        assertThat(c.after().partitionEpoch()).isEqualTo(c.before().partitionEpoch() + 1);
        assertThat(c.after().belowMinIsr()).isTrue();
    }

    /**
     * Topics created, changed, removed and created again within one entry: the same image as one record per entry,
     * and the delta reports the created topics with all their partitions (the delta edits a topic's partitions in
     * place and makes its image once, at apply).
     */
    @Test
    void oneEntryThatCreatesChangesRemovesAndRecreatesTopicsMatchesOneRecordPerEntry() {
        MetadataImage base = replay(recordedLog());
        SplittableRandom random = new SplittableRandom(SEED + 1);
        Uuid first = Uuid.random(random);
        Uuid second = Uuid.random(random);
        Uuid other = Uuid.random(random);
        List<MetadataRecord> records = List.of(
            rec(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("a").setTopicId(bs(first)))),
            partition(first, 0, List.of(1, 2)),
            partition(first, 1, List.of(2, 1)),
            rec(MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord.newBuilder().setTopicId(bs(first))
                .setPartition(0).setIsr(PartitionRegistration.intList(List.of(1))))),
            rec(MetadataRecord.newBuilder().setRemoveTopic(RemoveTopicRecord.newBuilder().setTopicId(bs(first)))),
            rec(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("a").setTopicId(bs(second)))),
            partition(second, 0, List.of(2, 1)),
            rec(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("b").setTopicId(bs(other)))),
            partition(other, 0, List.of(1, 2)),
            rec(MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord.newBuilder().setTopicId(bs(other))
                .setPartition(0).setLeader(2))));
        long index = base.index() + 1;
        MetadataDelta delta = MetadataDelta.replayAll(base, index, records);
        MetadataImage oneByOne = base;
        for (MetadataRecord r : records) {
            oneByOne = MetadataDelta.replayAll(oneByOne, index, List.of(r)).image();
        }
        assertThat(delta.image()).isEqualTo(oneByOne);
        assertThat(delta.createdTopics()).containsOnlyKeys(second, other);
        assertThat(delta.createdTopics().get(second).partitions()).containsOnlyKeys(0);
        assertThat(delta.createdTopics().get(other).partition(0).leader()).isEqualTo(2);
        assertThat(delta.createdTopics().get(other)).isEqualTo(delta.image().topicsById().get(other));
        assertThat(delta.changedPartitions().keySet()).containsExactlyInAnyOrder(new TopicIdPartition(second, 0),
            new TopicIdPartition(other, 0));
        // a name in use, whether from the image or created earlier in the same entry, fails loudly
        assertThatThrownBy(() -> MetadataDelta.replayAll(delta.image(), index + 1, List.of(
            rec(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("b").setTopicId(bs(first)))))))
            .hasMessage("topic b already exists");
        Uuid third = Uuid.random(random);
        assertThatThrownBy(() -> MetadataDelta.replayAll(base, index, List.of(records.get(0),
            rec(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder().setName("a").setTopicId(bs(third)))))))
            .hasMessage("topic a already exists");
        assertThatThrownBy(() -> MetadataDelta.replayAll(base, index, List.of(records.get(0), records.get(1), records.get(1))))
            .hasMessageContaining("already exists");
    }

    /** A broker registered and changed within one entry did not exist before it, whatever came after. */
    @Test
    void aBrokerRegisteredAndChangedInOneEntryWasAbsentBefore() {
        MetadataImage base = replay(recordedLog());
        MetadataDelta delta = MetadataDelta.replayAll(base, base.index() + 1, List.of(
            rec(MetadataRecord.newBuilder().setRegisterBroker(RegisterBrokerRecord.newBuilder().setBrokerId(9)
                .setIncarnationId("inc-9").setFenced(true).addEndpoints(Endpoint.newBuilder().setName("broker")
                    .setHost("127.0.0.1").setPort(9009)))),
            rec(MetadataRecord.newBuilder().setBrokerState(BrokerStateRecord.newBuilder().setBrokerId(9)
                .setBrokerEpoch(base.index() + 1).setState(BrokerState.ACTIVE)))));
        assertThat(delta.changedBrokers().get(9).before()).isNull();
        assertThat(delta.changedBrokers().get(9).after()).isEqualTo(delta.image().brokers().get(9));
    }

    @Test
    void recordsThatDoNotFitTheImageFailLoudly() {
        MetadataImage image = replay(recordedLog());
        MetadataRecord unknownPartition = rec(MetadataRecord.newBuilder().setPartitionChange(PartitionChangeRecord.newBuilder()
            .setTopicId(ByteString.copyFrom(new byte[16])).setPartition(0)));
        assertThatThrownBy(() -> MetadataDelta.replayAll(image, image.index() + 1, List.of(unknownPartition)))
            .isInstanceOf(IllegalStateException.class);
        MetadataRecord future = MetadataRecord.newBuilder().setVersion(99).setFeatureLevel(FeatureLevelRecord.newBuilder()
            .setName("x").setLevel(1)).build();
        assertThatThrownBy(() -> MetadataDelta.replayAll(image, image.index() + 1, List.of(future)))
            .hasMessageContaining("newer");
        assertThatThrownBy(() -> image.withIndex(1)).isInstanceOf(IllegalStateException.class);
    }

    static MetadataRecord rec(MetadataRecord.Builder b) {
        return MetadataImage.wrap(b);
    }

    static MetadataBatch batch(MetadataRecord... records) {
        return MetadataBatch.newBuilder().addAllRecords(List.of(records)).build();
    }

    static MetadataRecord partition(Uuid topic, int p, List<Integer> replicas) {
        return rec(MetadataRecord.newBuilder().setPartition(PartitionRecord.newBuilder().setTopicId(bs(topic)).setPartition(p)
            .addAllReplicas(replicas).addAllIsr(replicas).setLeader(replicas.get(0)).setLeaderEpoch(0).setPartitionEpoch(0)));
    }

    static ByteString bs(Uuid id) {
        return ByteString.copyFrom(id.bytes());
    }
}
