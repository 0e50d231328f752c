package io.raftline.metadata.controller;

import com.google.protobuf.ByteString;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.BrokerRegistration;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.metadata.image.TopicIdPartition;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.TopicPartition;
import io.raftline.protocol.controller.AlterPartitionReassignmentsRequest;
import io.raftline.protocol.controller.AlterPartitionReassignmentsResponse;
import io.raftline.protocol.controller.AlterPartitionRequest;
import io.raftline.protocol.controller.AlterPartitionResponse;
import io.raftline.protocol.controller.ElectLeadersRequest;
import io.raftline.protocol.controller.ElectLeadersResponse;
import io.raftline.protocol.controller.ElectionType;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.PartitionChangeRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * Partition decisions: elections from the ISR (unclean only when the topic allows it), ISR changes asked by
 * leaders (AlterPartition), preferred and unclean elections on demand, automatic leadership balance, and
 * reassignment (add the new replicas, wait for them to join the ISR, move leadership, drop the old ones; cancel).
 * Pure: every method reads an image and returns records; nothing here holds state.
 *
 * <p>Election rule: the new leader is the first replica, in preferred order, that is in the ISR and on an active
 * broker (registered, not fenced, not shutting down). When the last ISR member is lost, it stays the ISR (it has
 * every committed record) and the partition is offline until it comes back, unless unclean election is enabled
 * for the topic, in which case any active replica is chosen and becomes the whole ISR.
 */
final class PartitionControl {

    private final ControllerConfig config;
    /**
     * Broker id -> its replicas in offline log dirs, as its latest heartbeat reported them. In memory only, like
     * heartbeat times: a broker repeats the full set in every heartbeat, so a new controller learns it within one
     * heartbeat interval; a new registration (the broker restarted) clears it.
     */
    private final Map<Integer, Set<TopicIdPartition>> offlineReplicas = new HashMap<>();
    /** Bumped whenever {@link #offlineReplicas} changes: decisions that read it are stale once it moved. */
    private long offlineVersion;

    PartitionControl(ControllerConfig config) {
        this.config = config;
    }

    /** True while {@code brokerId} reports its replica of the partition as being in an offline log dir. */
    boolean isOfflineReplica(int brokerId, Uuid topicId, int partition) {
        Set<TopicIdPartition> set = offlineReplicas.get(brokerId);
        return set != null && set.contains(new TopicIdPartition(topicId, partition));
    }

    /** {@code usable}, less the brokers whose replica of this partition is in an offline log dir. */
    IntPredicate onlineFor(IntPredicate usable, Uuid topicId, int partition) {
        if (offlineReplicas.isEmpty()) {
            return usable;
        }
        return usable.and(r -> !isOfflineReplica(r, topicId, partition));
    }

    /** Forgets every broker's offline replicas (a new controller term). */
    void clearOfflineReplicas() {
        offlineReplicas.clear();
        offlineVersion++;
    }

    /** Forgets one broker's offline replicas (it registered again, so its dirs were checked at start). */
    void clearOfflineReplicas(int brokerId) {
        if (offlineReplicas.remove(brokerId) != null) {
            offlineVersion++;
        }
    }

    /** Changes whenever the offline replicas known to this controller change. */
    long offlineVersion() {
        return offlineVersion;
    }

    /**
     * Records the replicas {@code brokerId} reports in offline log dirs (its full current set) and returns the changes
     * that take it out of their ISRs and move their leaderships, as {@link #removeBroker} does for a whole broker: a
     * partition whose only ISR member is this replica keeps it as ISR and goes leaderless (or gets an unclean
     * leader when the topic allows). Reported partitions that do not exist, or that this broker does not hold,
     * are ignored.
     */
    List<MetadataRecord> setOfflineReplicas(MetadataImage image, int brokerId, Set<TopicIdPartition> reported) {
        if (reported.isEmpty()) {
            clearOfflineReplicas(brokerId);
            return List.of();
        }
        if (!reported.equals(offlineReplicas.put(brokerId, Set.copyOf(reported)))) {
            offlineVersion++;
        }
        List<MetadataRecord> out = new ArrayList<>();
        for (TopicIdPartition tip : reported) {
            TopicImage t = image.topic(tip.topicId()).orElse(null);
            PartitionRegistration p = t == null ? null : t.partition(tip.partition());
            if (p == null || !p.replicas().contains(brokerId)) {
                continue;
            }
            if (p.leader() != brokerId && !p.isr().contains(brokerId)) {
                continue;
            }
            IntPredicate usable = onlineFor(activeIn(image), t.id(), tip.partition());
            List<Integer> isr = p.isr().stream().filter(r -> r != brokerId).toList();
            if (isr.isEmpty()) {
                isr = p.isr();
            }
            int leader = p.leader();
            if (leader == brokerId || leader == PartitionRegistration.NO_LEADER) {
                leader = firstEligible(p.replicas(), isr, usable);
                if (leader == PartitionRegistration.NO_LEADER && TopicConfigs.uncleanElection(image, config, t.name())) {
                    leader = firstEligible(p.replicas(), p.replicas(), usable);
                    if (leader != PartitionRegistration.NO_LEADER) {
                        isr = List.of(leader);
                    }
                }
            }
            MetadataRecord r = change(image, t, tip.partition(), p, leader, isr, null, null, null,
                "broker " + brokerId + " reports its replica in an offline log dir");
            if (r != null) {
                out.add(r);
            }
        }
        return out;
    }

    static IntPredicate activeIn(MetadataImage image) {
        return image::brokerActive;
    }

    static int firstEligible(List<Integer> replicas, List<Integer> isr, IntPredicate usable) {
        for (int r : replicas) {
            if (isr.contains(r) && usable.test(r)) {
                return r;
            }
        }
        return PartitionRegistration.NO_LEADER;
    }

    static ByteString idBytes(Uuid id) {
        return ByteString.copyFrom(id.bytes());
    }

    /**
     * The change record taking {@code before} to the given target (null arguments: unchanged), or null when
     * nothing would change.
     */
    MetadataRecord change(MetadataImage image, TopicImage topic, int partition, PartitionRegistration before,
                          Integer leader, List<Integer> isr, List<Integer> replicas, List<Integer> adding,
                          List<Integer> removing, String reason) {
        PartitionChangeRecord.Builder b = PartitionChangeRecord.newBuilder().setTopicId(idBytes(topic.id()))
            .setPartition(partition).setReason(reason);
        boolean changed = false;
        if (leader != null && leader != before.leader()) {
            b.setLeader(leader);
            changed = true;
        }
        List<Integer> newIsr = isr != null ? isr : before.isr();
        if (!newIsr.equals(before.isr())) {
            b.setIsr(PartitionRegistration.intList(newIsr));
            changed = true;
        }
        if (replicas != null && !replicas.equals(before.replicas())) {
            b.setReplicas(PartitionRegistration.intList(replicas));
            changed = true;
        }
        if (adding != null && !adding.equals(before.addingReplicas())) {
            b.setAddingReplicas(PartitionRegistration.intList(adding));
            changed = true;
        }
        if (removing != null && !removing.equals(before.removingReplicas())) {
            b.setRemovingReplicas(PartitionRegistration.intList(removing));
            changed = true;
        }
        boolean below = newIsr.size() < TopicConfigs.minInsyncReplicas(image, config, topic.name());
        if (below != before.belowMinIsr()) {
            b.setBelowMinIsr(below);
            changed = true;
        }
        return changed ? MetadataImage.wrap(MetadataRecord.newBuilder().setPartitionChange(b)) : null;
    }

    /**
     * Takes {@code brokerId} out of every ISR and moves every leadership it holds (fencing, controlled shutdown,
     * a new incarnation). A partition whose ISR is only that broker keeps it as ISR and goes offline (or gets an
     * unclean leader when the topic allows).
     */
    List<MetadataRecord> removeBroker(MetadataImage image, int brokerId, String reason) {
        IntPredicate usable = activeIn(image).and(id -> id != brokerId);
        List<MetadataRecord> out = new ArrayList<>();
        for (TopicImage t : image.topicsById().values()) {
            for (Map.Entry<Integer, PartitionRegistration> e : t.partitions().entrySet()) {
                PartitionRegistration p = e.getValue();
                if (p.leader() != brokerId && !p.isr().contains(brokerId)) {
                    continue;
                }
                List<Integer> isr = p.isr().stream().filter(r -> r != brokerId).toList();
                if (isr.isEmpty()) {
                    isr = p.isr();
                }
                int leader = p.leader();
                if (leader == brokerId || leader == PartitionRegistration.NO_LEADER) {
                    IntPredicate online = onlineFor(usable, t.id(), e.getKey());
                    leader = firstEligible(p.replicas(), isr, online);
                    if (leader == PartitionRegistration.NO_LEADER && TopicConfigs.uncleanElection(image, config, t.name())) {
                        leader = firstEligible(p.replicas(), p.replicas(), online);
                        if (leader != PartitionRegistration.NO_LEADER) {
                            isr = List.of(leader);
                        }
                    }
                }
                MetadataRecord r = change(image, t, e.getKey(), p, leader, isr, null, null, null, reason);
                if (r != null) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    /**
     * Elects a leader for every leaderless partition that has an eligible replica: from the ISR, or any active
     * replica when unclean election is enabled for the topic. {@code usable} says which brokers may lead.
     */
    List<MetadataRecord> electOffline(MetadataImage image, IntPredicate usable) {
        List<MetadataRecord> out = new ArrayList<>();
        for (TopicImage t : image.topicsById().values()) {
            for (Map.Entry<Integer, PartitionRegistration> e : t.partitions().entrySet()) {
                PartitionRegistration p = e.getValue();
                if (p.hasLeader()) {
                    continue;
                }
                MetadataRecord r = electOne(image, t, e.getKey(), p, usable,
                    TopicConfigs.uncleanElection(image, config, t.name()), "offline partition election");
                if (r != null) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    private MetadataRecord electOne(MetadataImage image, TopicImage t, int partition, PartitionRegistration p,
                                    IntPredicate candidates, boolean unclean, String reason) {
        IntPredicate usable = onlineFor(candidates, t.id(), partition);
        int leader = firstEligible(p.replicas(), p.isr(), usable);
        List<Integer> isr = p.isr();
        if (leader == PartitionRegistration.NO_LEADER && unclean) {
            leader = firstEligible(p.replicas(), p.replicas(), usable);
            if (leader == PartitionRegistration.NO_LEADER) {
                return null;
            }
            isr = List.of(leader);
        }
        if (leader == PartitionRegistration.NO_LEADER) {
            return null;
        }
        return change(image, t, partition, p, leader, isr, null, null, null, reason);
    }

    ControllerResult<AlterPartitionResponse> alterPartition(MetadataImage image, AlterPartitionRequest request) {
        AlterPartitionResponse.Builder resp = AlterPartitionResponse.newBuilder().setError(Errors.NONE);
        BrokerRegistration broker = image.broker(request.getBrokerId()).orElse(null);
        if (broker == null) {
            return ControllerResult.answer(resp.setError(Errors.of(ErrorCode.BROKER_ID_NOT_REGISTERED,
                "broker " + request.getBrokerId() + " is not registered")).build());
        }
        if (broker.epoch() != request.getBrokerEpoch()) {
            return ControllerResult.answer(resp.setError(Errors.of(ErrorCode.STALE_BROKER_EPOCH, "broker "
                + request.getBrokerId() + " epoch " + request.getBrokerEpoch() + " is not its current " + broker.epoch()))
                .build());
        }
        List<MetadataRecord> records = new ArrayList<>();
        IntPredicate active = activeIn(image);
        List<AlterPartitionResponse.PartitionResult> results = new ArrayList<>();
        for (AlterPartitionRequest.PartitionIsr req : request.getPartitionsList()) {
            AlterPartitionResponse.PartitionResult.Builder r = AlterPartitionResponse.PartitionResult.newBuilder()
                .setTopicId(req.getTopicId()).setPartition(req.getPartition()).setError(Errors.NONE);
            Uuid id = req.getTopicId().size() == Uuid.SIZE_BYTES ? Uuid.fromBytes(req.getTopicId().toByteArray()) : null;
            TopicImage t = id == null ? null : image.topic(id).orElse(null);
            PartitionRegistration p = t == null ? null : t.partition(req.getPartition());
            if (p == null) {
                results.add(r.setError(Errors.of(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "unknown partition "
                    + id + "-" + req.getPartition())).build());
                continue;
            }
            ErrorCode code = ErrorCode.NONE;
            String why = "";
            if (p.leader() != request.getBrokerId()) {
                code = ErrorCode.NOT_LEADER;
                why = "broker " + request.getBrokerId() + " is not the leader (leader is " + p.leader() + ")";
            } else if (req.getLeaderEpoch() < p.leaderEpoch()) {
                code = ErrorCode.FENCED_LEADER_EPOCH;
                why = "leader epoch " + req.getLeaderEpoch() + " is older than " + p.leaderEpoch();
            } else if (req.getLeaderEpoch() > p.leaderEpoch()) {
                code = ErrorCode.UNKNOWN_LEADER_EPOCH;
                why = "leader epoch " + req.getLeaderEpoch() + " is newer than " + p.leaderEpoch();
            } else if (req.getPartitionEpoch() != p.partitionEpoch()) {
                code = ErrorCode.INVALID_UPDATE_VERSION;
                why = "partition epoch " + req.getPartitionEpoch() + " is not the current " + p.partitionEpoch();
            } else {
                why = checkIsr(req.getNewIsrList(), req.getNewIsrBrokerEpochsList(), p, request.getBrokerId(),
                    onlineFor(active, id, req.getPartition()), image);
                if (why != null) {
                    code = why.startsWith("replica") ? ErrorCode.INELIGIBLE_REPLICA : ErrorCode.INVALID_REQUEST;
                }
            }
            if (code != ErrorCode.NONE) {
                results.add(fill(r, p).setError(Errors.of(code, t.name() + "-" + req.getPartition() + ": " + why)).build());
                continue;
            }
            List<Integer> isr = p.replicas().stream().filter(req.getNewIsrList()::contains).toList();
            MetadataRecord rec = completeReassignmentIfReady(image, t, req.getPartition(), p, isr, active, "alter partition");
            if (rec == null) {
                rec = change(image, t, req.getPartition(), p, null, isr, null, null, null,
                    isr.size() < p.isr().size() ? "isr shrink" : "isr expand");
            }
            PartitionRegistration after = p;
            if (rec != null) {
                records.add(rec);
                after = p.merge(rec.getPartitionChange());
            }
            results.add(fill(r, after).build());
        }
        resp.addAllPartitions(results);
        return ControllerResult.of(records, resp.build());
    }

    /**
     * Why {@code newIsr} is refused, or null: it must hold the leader, no duplicates, only replicas; a joining member
     * must be active and, when the leader sent the broker epochs it saw them fetch with ({@code epochs}, in
     * {@code newIsr}'s order), still registered with that epoch (KIP-903): a broker that restarted after the leader
     * counted its fetches may have come back with less data.
     */
    private static String checkIsr(List<Integer> newIsr, List<Long> epochs, PartitionRegistration p, int leader,
                                   IntPredicate active, MetadataImage image) {
        if (!newIsr.contains(leader)) {
            return "the new ISR " + newIsr + " does not contain the leader " + leader;
        }
        if (new HashSet<>(newIsr).size() != newIsr.size()) {
            return "the new ISR " + newIsr + " has duplicates";
        }
        for (int r : newIsr) {
            if (!p.replicas().contains(r)) {
                return "the new ISR " + newIsr + " holds " + r + ", which is not a replica";
            }
            if (!p.isr().contains(r) && !active.test(r)) {
                return "replica " + r + " is fenced, shutting down or in an offline log dir and cannot join the ISR";
            }
        }
        if (epochs.size() == newIsr.size()) {
            for (int i = 0; i < newIsr.size(); i++) {
                int r = newIsr.get(i);
                long registered = image.broker(r).map(BrokerRegistration::epoch).orElse(-1L);
                if (!p.isr().contains(r) && epochs.get(i) != registered) {
                    return "replica " + r + " joins on fetches of broker epoch " + epochs.get(i) + " but is registered with "
                        + registered + " (it restarted since) and cannot join the ISR";
                }
            }
        }
        return null;
    }

    private static AlterPartitionResponse.PartitionResult.Builder fill(AlterPartitionResponse.PartitionResult.Builder r,
                                                                       PartitionRegistration p) {
        return r.setLeader(p.leader()).setLeaderEpoch(p.leaderEpoch()).setPartitionEpoch(p.partitionEpoch())
            .clearIsr().addAllIsr(p.isr());
    }

    /**
     * When a reassigning partition has every adding replica in {@code isr}, the record that finishes it: replicas
     * become the target, the removed ones leave the ISR, and leadership moves into the target set if needed.
     */
    MetadataRecord completeReassignmentIfReady(MetadataImage image, TopicImage t, int partition,
                                               PartitionRegistration p, List<Integer> isr, IntPredicate usable,
                                               String reason) {
        if (!p.reassigning() || !isr.containsAll(p.addingReplicas())) {
            return null;
        }
        List<Integer> target = p.targetReplicas();
        List<Integer> newIsr = target.stream().filter(isr::contains).toList();
        int leader = p.leader();
        if (!target.contains(leader)) {
            leader = firstEligible(target, newIsr, onlineFor(usable, t.id(), partition));
        }
        if (newIsr.isEmpty()) {
            return null;
        }
        return change(image, t, partition, p, leader, newIsr, target, List.of(), List.of(), reason + ": reassignment done");
    }

    /** Finishes every reassignment whose new replicas have all joined the ISR. */
    List<MetadataRecord> completeReassignments(MetadataImage image) {
        List<MetadataRecord> out = new ArrayList<>();
        IntPredicate usable = activeIn(image);
        for (TopicImage t : image.topicsById().values()) {
            t.partitions().forEach((n, p) -> {
                MetadataRecord r = completeReassignmentIfReady(image, t, n, p, p.isr(), usable, "periodic check");
                if (r != null) {
                    out.add(r);
                }
            });
        }
        return out;
    }

    ControllerResult<ElectLeadersResponse> electLeaders(MetadataImage image, ElectLeadersRequest request) {
        List<TopicPartition> targets = new ArrayList<>(request.getPartitionsList());
        if (targets.isEmpty()) {
            for (TopicImage t : image.topicsById().values()) {
                for (int p : t.partitions().keySet()) {
                    targets.add(TopicPartition.newBuilder().setTopic(t.name()).setPartition(p).build());
                }
            }
        }
        IntPredicate usable = activeIn(image);
        List<MetadataRecord> records = new ArrayList<>();
        ElectLeadersResponse.Builder resp = ElectLeadersResponse.newBuilder().setError(Errors.NONE);
        Set<TopicPartition> seen = new LinkedHashSet<>();
        for (TopicPartition tp : targets) {
            if (!seen.add(tp)) {
                continue;
            }
            ElectLeadersResponse.Result.Builder r = ElectLeadersResponse.Result.newBuilder().setPartition(tp)
                .setError(Errors.NONE).setLeader(PartitionRegistration.NO_LEADER);
            TopicImage t = image.topic(tp.getTopic()).orElse(null);
            PartitionRegistration p = t == null ? null : t.partition(tp.getPartition());
            if (p == null) {
                resp.addPartitions(r.setError(Errors.of(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                    "unknown partition " + tp.getTopic() + "-" + tp.getPartition())));
                continue;
            }
            r.setLeader(p.leader());
            String name = tp.getTopic() + "-" + tp.getPartition();
            MetadataRecord rec;
            if (request.getType() == ElectionType.PREFERRED) {
                int preferred = p.preferredLeader();
                if (p.leader() == preferred) {
                    resp.addPartitions(r.setError(Errors.of(ErrorCode.ELECTION_NOT_NEEDED,
                        name + ": the preferred leader " + preferred + " already leads")));
                    continue;
                }
                if (!p.isr().contains(preferred) || !onlineFor(usable, t.id(), tp.getPartition()).test(preferred)) {
                    resp.addPartitions(r.setError(Errors.of(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE,
                        name + ": the preferred leader " + preferred + " is not an active member of the ISR " + p.isr())));
                    continue;
                }
                rec = change(image, t, tp.getPartition(), p, preferred, null, null, null, null, "preferred election");
            } else {
                if (p.hasLeader()) {
                    resp.addPartitions(r.setError(Errors.of(ErrorCode.ELECTION_NOT_NEEDED, name + " has leader " + p.leader())));
                    continue;
                }
                rec = electOne(image, t, tp.getPartition(), p, usable, true, "unclean election");
                if (rec == null) {
                    resp.addPartitions(r.setError(Errors.of(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE,
                        name + ": no replica of " + p.replicas() + " is on an active broker")));
                    continue;
                }
            }
            records.add(rec);
            resp.addPartitions(r.setLeader(p.merge(rec.getPartitionChange()).leader()));
        }
        return ControllerResult.of(records, resp.build());
    }

    /**
     * Kafka's automatic preferred election: for each broker, the share of the partitions it is preferred leader
     * of that it does not lead; past {@code leader.imbalance.per.broker.percentage}, elect it wherever it is an
     * active ISR member.
     */
    List<MetadataRecord> balanceLeaders(MetadataImage image) {
        IntPredicate usable = activeIn(image);
        Map<Integer, Integer> preferredCount = new HashMap<>();
        Map<Integer, Integer> notLeading = new HashMap<>();
        for (TopicImage t : image.topicsById().values()) {
            for (PartitionRegistration p : t.partitions().values()) {
                preferredCount.merge(p.preferredLeader(), 1, Integer::sum);
                if (p.leader() != p.preferredLeader()) {
                    notLeading.merge(p.preferredLeader(), 1, Integer::sum);
                }
            }
        }
        List<MetadataRecord> out = new ArrayList<>();
        for (Map.Entry<Integer, Integer> e : notLeading.entrySet()) {
            int broker = e.getKey();
            double ratio = 100.0 * e.getValue() / preferredCount.get(broker);
            if (ratio <= config.leaderImbalancePerBrokerPercentage() || !usable.test(broker)) {
                continue;
            }
            for (TopicImage t : image.topicsById().values()) {
                t.partitions().forEach((n, p) -> {
                    if (p.preferredLeader() == broker && p.leader() != broker && p.isr().contains(broker)
                        && !isOfflineReplica(broker, t.id(), n)) {
                        MetadataRecord r = change(image, t, n, p, broker, null, null, null, null, "automatic preferred election");
                        if (r != null) {
                            out.add(r);
                        }
                    }
                });
            }
        }
        return out;
    }

    ControllerResult<AlterPartitionReassignmentsResponse> reassign(MetadataImage image,
                                                                   AlterPartitionReassignmentsRequest request) {
        IntPredicate usable = activeIn(image);
        List<MetadataRecord> records = new ArrayList<>();
        AlterPartitionReassignmentsResponse.Builder resp = AlterPartitionReassignmentsResponse.newBuilder()
            .setError(Errors.NONE);
        Set<TopicPartition> seen = new HashSet<>();
        for (AlterPartitionReassignmentsRequest.Reassignment ra : request.getReassignmentsList()) {
            TopicPartition tp = ra.getPartition();
            AlterPartitionReassignmentsResponse.Result.Builder r = AlterPartitionReassignmentsResponse.Result.newBuilder()
                .setPartition(tp).setError(Errors.NONE);
            String name = tp.getTopic() + "-" + tp.getPartition();
            TopicImage t = image.topic(tp.getTopic()).orElse(null);
            PartitionRegistration p = t == null ? null : t.partition(tp.getPartition());
            if (p == null) {
                resp.addPartitions(r.setError(Errors.of(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "unknown partition " + name)));
                continue;
            }
            if (!seen.add(tp)) {
                resp.addPartitions(r.setError(Errors.of(ErrorCode.INVALID_REQUEST, name + " is listed twice")));
                continue;
            }
            MetadataRecord rec;
            if (!ra.hasReplicas()) {
                if (!p.reassigning()) {
                    resp.addPartitions(r.setError(Errors.of(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS,
                        name + " has no reassignment in progress")));
                    continue;
                }
                List<Integer> original = p.originalReplicas();
                List<Integer> isr = p.isr().stream().filter(original::contains).toList();
                int leader = original.contains(p.leader()) ? p.leader() : firstEligible(original, isr, usable);
                rec = change(image, t, tp.getPartition(), p, leader, isr.isEmpty() ? p.isr() : isr, original,
                    List.of(), List.of(), "reassignment cancelled");
            } else {
                List<Integer> target = ra.getReplicas().getValuesList();
                String bad = checkAssignment(image, target);
                if (bad != null) {
                    resp.addPartitions(r.setError(Errors.of(ErrorCode.INVALID_REPLICA_ASSIGNMENT, name + ": " + bad)));
                    continue;
                }
                rec = startReassignment(image, t, tp.getPartition(), p, target, usable);
            }
            if (rec != null) {
                records.add(rec);
            }
            resp.addPartitions(r);
        }
        return ControllerResult.of(records, resp.build());
    }

    static String checkAssignment(MetadataImage image, List<Integer> replicas) {
        if (replicas.isEmpty()) {
            return "the replica list is empty";
        }
        if (new HashSet<>(replicas).size() != replicas.size()) {
            return "the replica list " + replicas + " has duplicates";
        }
        for (int r : replicas) {
            if (image.broker(r).isEmpty()) {
                return "broker " + r + " is not registered";
            }
        }
        return null;
    }

    private MetadataRecord startReassignment(MetadataImage image, TopicImage t, int n, PartitionRegistration p,
                                             List<Integer> target, IntPredicate usable) {
        List<Integer> original = p.originalReplicas();
        List<Integer> adding = target.stream().filter(r -> !original.contains(r)).toList();
        List<Integer> removing = original.stream().filter(r -> !target.contains(r)).toList();
        List<Integer> union = new ArrayList<>(target);
        removing.forEach(union::add);
        List<Integer> isr = p.isr().stream().filter(union::contains).toList();
        if (adding.isEmpty()) {
            // Only dropping replicas (or reordering): nothing to wait for.
            List<Integer> newIsr = target.stream().filter(isr::contains).toList();
            if (newIsr.isEmpty()) {
                newIsr = isr;
            }
            int leader = target.contains(p.leader()) ? p.leader() : firstEligible(target, newIsr, usable);
            return change(image, t, n, p, leader, newIsr, target, List.of(), List.of(), "reassignment");
        }
        return change(image, t, n, p, null, isr, union, adding, removing, "reassignment started");
    }
}
