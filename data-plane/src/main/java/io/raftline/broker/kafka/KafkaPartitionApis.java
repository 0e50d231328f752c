package io.raftline.broker.kafka;

import io.grpc.stub.StreamObserver;
import io.raftline.broker.rpc.BrokerRpcService;
import io.raftline.broker.rpc.ServedImage;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.TopicPartition;
import io.raftline.protocol.broker.MetadataRequest;
import io.raftline.protocol.broker.MetadataResponse;
import io.raftline.protocol.broker.PartitionMetadata;
import io.raftline.protocol.broker.TopicMetadata;
import io.raftline.protocol.controller.AlterPartitionReassignmentsRequest;
import io.raftline.protocol.controller.AlterPartitionReassignmentsResponse;
import io.raftline.protocol.metadata.IntList;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Partitions on the Kafka listener: DescribeTopicPartitions (KIP-966's paged topic description, what kafka-clients'
 * Admin describes topics with) over the broker's Metadata call, and replica reassignments, started and cancelled
 * through the controller and listed from the replicas being added and removed that Metadata reports.
 */
final class KafkaPartitionApis {

    private final BrokerRpcService service;
    private final ServedImage served;
    private final BiConsumer<MetadataRequest, StreamObserver<MetadataResponse>> metadata;

    KafkaPartitionApis(BrokerRpcService service, ServedImage served) {
        this(service, served, service::metadata);
    }

    /** With the broker's Metadata call given apart: {@code service} may be null for DescribeTopicPartitions alone. */
    KafkaPartitionApis(BrokerRpcService service, ServedImage served,
                       BiConsumer<MetadataRequest, StreamObserver<MetadataResponse>> metadata) {
        this.service = service;
        this.served = served;
        this.metadata = metadata;
    }

    // ---------------------------------------------------------------------------------------------------------
    // DescribeTopicPartitions

    /** Where a page starts or the next one would: a topic and a partition of it. */
    record Cursor(String topic, int partition) {
    }

    /** One page: its topics, each with the partitions from {@code first} on (count {@code count}), and the next cursor. */
    record Page(List<Slice> slices, Cursor next) {
    }

    /** Partitions {@code first} to {@code first + count - 1} of topic number {@code index} in the sorted list. */
    record Slice(int index, int first, int count) {
    }

    /**
     * The page of {@code partitionCounts} (topics sorted by name) that starts at {@code cursor} and holds at most
     * {@code limit} partitions; a topic the cursor passed is left out, and a topic with no partitions (one that does
     * not exist) takes no room.
     */
    static Page page(List<String> names, List<Integer> partitionCounts, Cursor cursor, int limit) {
        List<Slice> slices = new ArrayList<>();
        int room = Math.max(1, limit);
        for (int i = 0; i < names.size(); i++) {
            int first = 0;
            if (cursor != null) {
                int c = names.get(i).compareTo(cursor.topic());
                if (c < 0) {
                    continue;
                }
                if (c == 0) {
                    first = Math.max(0, cursor.partition());
                }
            }
            int available = Math.max(0, partitionCounts.get(i) - first);
            if (room == 0) {
                return new Page(slices, new Cursor(names.get(i), first));
            }
            int taken = Math.min(available, room);
            slices.add(new Slice(i, first, taken));
            room -= taken;
            if (taken < available) {
                return new Page(slices, new Cursor(names.get(i), first + taken));
            }
        }
        return new Page(slices, null);
    }

    /**
     * The page is laid out over the served image (names and partition counts), and the broker's Metadata is asked for
     * that page's topics alone: asking it for every topic on each page made a description of N topics cost N² (100,000
     * topics in 2,000-partition pages: 50 answers of 100,000 topics each). A topic the Metadata answer holds fewer
     * partitions of than the image did (changed in between) gives what it holds; in a listing of every topic, one the
     * caller may not describe is left out, as Metadata's own listing leaves it out, and the page ends early.
     */
    CompletableFuture<ApiMessage> describeTopicPartitions(KafkaRequest request) {
        DescribeTopicPartitionsRequestData req = (DescribeTopicPartitionsRequestData) request.body().data();
        Set<String> asked = new HashSet<>();
        req.topics().forEach(t -> asked.add(t.name()));
        boolean everyTopic = asked.isEmpty();
        MetadataImage image = served.current();
        List<String> names = new ArrayList<>(everyTopic ? image.topicIdsByName().keySet() : asked);
        names.sort(Comparator.naturalOrder());
        // looked up only for the topics page() reaches: the page's own and the one after it
        List<Integer> counts = new AbstractList<>() {
            @Override
            public Integer get(int i) {
                return image.topic(names.get(i)).map(t -> t.partitions().size()).orElse(0);
            }

            @Override
            public int size() {
                return names.size();
            }
        };
        Cursor cursor = req.cursor() == null ? null : new Cursor(req.cursor().topicName(), req.cursor().partitionIndex());
        Page page = page(names, counts, cursor, req.responsePartitionLimit());
        if (page.slices().isEmpty()) {
            return CompletableFuture.completedFuture(new DescribeTopicPartitionsResponseData());
        }
        MetadataRequest ours = MetadataRequest.newBuilder().setAllTopics(false)
            .addAllTopics(page.slices().stream().map(s -> names.get(s.index())).toList())
            .setAllowAutoTopicCreation(false).build();
        return Unary.call(metadata, ours).thenApply(r -> {
            Map<String, TopicMetadata> byName = new HashMap<>();
            r.getTopicsList().forEach(t -> byName.put(t.getName(), t));
            DescribeTopicPartitionsResponseData out = new DescribeTopicPartitionsResponseData();
            for (Slice s : page.slices()) {
                TopicMetadata t = byName.get(names.get(s.index()));
                if (t == null || everyTopic && t.getError().getCode() == ErrorCode.TOPIC_AUTHORIZATION_FAILED) {
                    continue;
                }
                DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic topic =
                    new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic().setName(t.getName())
                        .setErrorCode(KafkaApis.code(t.getError())).setIsInternal(t.getInternal());
                if (!t.getTopicId().isEmpty()) {
                    topic.setTopicId(KafkaApis.kafkaUuid(Uuid.fromBytes(t.getTopicId().toByteArray())));
                }
                List<PartitionMetadata> partitions = new ArrayList<>(t.getPartitionsList());
                partitions.sort(Comparator.comparingInt(PartitionMetadata::getPartition));
                int from = Math.min(s.first(), partitions.size());
                for (PartitionMetadata p : partitions.subList(from, Math.min(s.first() + s.count(), partitions.size()))) {
                    topic.partitions().add(new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition()
                        .setPartitionIndex(p.getPartition()).setErrorCode(KafkaApis.code(p.getError()))
                        .setLeaderId(p.getLeader()).setLeaderEpoch(p.getLeaderEpoch()).setReplicaNodes(p.getReplicasList())
                        .setIsrNodes(p.getIsrList()).setOfflineReplicas(p.getOfflineReplicasList())
                        .setEligibleLeaderReplicas(List.of()).setLastKnownElr(List.of()));
                }
                out.topics().add(topic);
            }
            Cursor next = page.next();
            Slice last = page.slices().get(page.slices().size() - 1);
            TopicMetadata lastAnswered = byName.get(names.get(last.index()));
            if (next != null && next.topic().equals(names.get(last.index()))
                && (lastAnswered == null || lastAnswered.getPartitionsCount() <= next.partition())) {
                // the topic the page ended in was answered with fewer partitions (denied, deleted, shrunk): go past it
                next = last.index() + 1 < names.size() ? new Cursor(names.get(last.index() + 1), 0) : null;
            }
            if (next != null) {
                out.setNextCursor(new DescribeTopicPartitionsResponseData.Cursor().setTopicName(next.topic())
                    .setPartitionIndex(next.partition()));
            }
            return out;
        });
    }

    // ---------------------------------------------------------------------------------------------------------
    // Reassignments

    /**
     * Forwarded to the controller in one call. With {@code allowReplicationFactorChange=false} (v1) a partition whose
     * new replica list would change its replication factor is refused here (INVALID_REPLICATION_FACTOR) and the
     * others go on, as Kafka's broker does.
     */
    CompletableFuture<ApiMessage> alterPartitionReassignments(KafkaRequest request) {
        AlterPartitionReassignmentsRequestData req = (AlterPartitionReassignmentsRequestData) request.body().data();
        boolean allowRfChange = request.version() < 1 || req.allowReplicationFactorChange();
        AlterPartitionReassignmentsResponseData out = new AlterPartitionReassignmentsResponseData()
            .setErrorCode(Errors.NONE.code()).setAllowReplicationFactorChange(allowRfChange);
        AlterPartitionReassignmentsRequest.Builder ours = AlterPartitionReassignmentsRequest.newBuilder();
        java.util.Map<String, AlterPartitionReassignmentsResponseData.ReassignableTopicResponse> byName = new java.util.HashMap<>();
        var image = served.current();
        for (AlterPartitionReassignmentsRequestData.ReassignableTopic t : req.topics()) {
            AlterPartitionReassignmentsResponseData.ReassignableTopicResponse topic =
                new AlterPartitionReassignmentsResponseData.ReassignableTopicResponse().setName(t.name());
            out.responses().add(topic);
            byName.put(t.name(), topic);
            for (AlterPartitionReassignmentsRequestData.ReassignablePartition p : t.partitions()) {
                if (p.replicas() != null && !allowRfChange) {
                    int current = image.topic(t.name()).map(ti -> ti.partition(p.partitionIndex()))
                        .map(pr -> pr.replicas().size()).orElse(p.replicas().size());
                    if (current != p.replicas().size()) {
                        topic.partitions().add(new AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse()
                            .setPartitionIndex(p.partitionIndex()).setErrorCode(Errors.INVALID_REPLICATION_FACTOR.code())
                            .setErrorMessage("the replication factor would change from " + current + " to "
                                + p.replicas().size() + " and allowReplicationFactorChange is false"));
                        continue;
                    }
                }
                AlterPartitionReassignmentsRequest.Reassignment.Builder r = AlterPartitionReassignmentsRequest.Reassignment
                    .newBuilder().setPartition(TopicPartition.newBuilder().setTopic(t.name()).setPartition(p.partitionIndex()));
                if (p.replicas() != null) {
                    r.setReplicas(IntList.newBuilder().addAllValues(p.replicas()));
                }
                ours.addReassignments(r);
            }
        }
        if (ours.getReassignmentsCount() == 0) {
            return CompletableFuture.completedFuture(out);
        }
        return Unary.call(service::alterPartitionReassignments, ours.build()).thenApply(r -> {
            if (r.getError().getCode() != ErrorCode.NONE) {
                return request.body().getErrorResponse(0,
                    KafkaErrors.of(r.getError().getCode()).exception(KafkaApis.message(r.getError()))).data();
            }
            for (AlterPartitionReassignmentsResponse.Result p : r.getPartitionsList()) {
                byName.get(p.getPartition().getTopic()).partitions().add(
                    new AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse()
                        .setPartitionIndex(p.getPartition().getPartition()).setErrorCode(KafkaApis.code(p.getError()))
                        .setErrorMessage(KafkaApis.message(p.getError())));
            }
            return out;
        });
    }

    CompletableFuture<ApiMessage> listPartitionReassignments(KafkaRequest request) {
        ListPartitionReassignmentsRequestData req = (ListPartitionReassignmentsRequestData) request.body().data();
        MetadataRequest.Builder ours = MetadataRequest.newBuilder().setAllTopics(req.topics() == null);
        if (req.topics() != null) {
            req.topics().forEach(t -> ours.addTopics(t.name()));
            if (req.topics().isEmpty()) {
                return CompletableFuture.completedFuture(new ListPartitionReassignmentsResponseData());
            }
        }
        return Unary.call(service::metadata, ours.build()).thenApply(r -> {
            ListPartitionReassignmentsResponseData out = new ListPartitionReassignmentsResponseData()
                .setErrorCode(Errors.NONE.code());
            for (TopicMetadata t : r.getTopicsList()) {
                Set<Integer> wanted = null;
                if (req.topics() != null) {
                    wanted = new HashSet<>();
                    for (ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics q : req.topics()) {
                        if (q.name().equals(t.getName())) {
                            wanted.addAll(q.partitionIndexes());
                        }
                    }
                }
                ListPartitionReassignmentsResponseData.OngoingTopicReassignment topic =
                    new ListPartitionReassignmentsResponseData.OngoingTopicReassignment().setName(t.getName());
                for (PartitionMetadata p : t.getPartitionsList()) {
                    if ((p.getAddingReplicasCount() > 0 || p.getRemovingReplicasCount() > 0)
                        && (wanted == null || wanted.contains(p.getPartition()))) {
                        topic.partitions().add(new ListPartitionReassignmentsResponseData.OngoingPartitionReassignment()
                            .setPartitionIndex(p.getPartition()).setReplicas(p.getReplicasList())
                            .setAddingReplicas(p.getAddingReplicasList()).setRemovingReplicas(p.getRemovingReplicasList()));
                    }
                }
                if (!topic.partitions().isEmpty()) {
                    out.topics().add(topic);
                }
            }
            return out;
        });
    }
}
