package io.raftline.client.testing;

import com.google.protobuf.ByteString;
import io.grpc.stub.StreamObserver;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.DescribeConfigsRequest;
import io.raftline.protocol.broker.DescribeConfigsResponse;
import io.raftline.protocol.broker.DescribeLogsRequest;
import io.raftline.protocol.broker.DescribeLogsResponse;
import io.raftline.protocol.broker.FetchRequest;
import io.raftline.protocol.broker.FetchResponse;
import io.raftline.protocol.broker.InitProducerIdRequest;
import io.raftline.protocol.broker.InitProducerIdResponse;
import io.raftline.protocol.broker.ListOffsetsRequest;
import io.raftline.protocol.broker.ListOffsetsResponse;
import io.raftline.protocol.broker.MetadataRequest;
import io.raftline.protocol.broker.MetadataResponse;
import io.raftline.protocol.broker.ProduceRequest;
import io.raftline.protocol.broker.ProduceResponse;
import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.controller.AlterConfigsResponse;
import io.raftline.protocol.controller.AlterPartitionReassignmentsRequest;
import io.raftline.protocol.controller.AlterPartitionReassignmentsResponse;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreatePartitionsRequest;
import io.raftline.protocol.controller.CreatePartitionsResponse;
import io.raftline.protocol.controller.CreateTopicsRequest;
import io.raftline.protocol.controller.CreateTopicsResponse;
import io.raftline.protocol.controller.DeleteTopicsRequest;
import io.raftline.protocol.controller.DeleteTopicsResponse;
import io.raftline.protocol.controller.DescribeQuorumRequest;
import io.raftline.protocol.controller.DescribeQuorumResponse;
import io.raftline.protocol.controller.ElectLeadersRequest;
import io.raftline.protocol.controller.ElectLeadersResponse;
import io.raftline.protocol.metadata.ConfigResourceType;
import io.raftline.record.BatchValidator;
import io.raftline.record.ValidationResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One fake broker's BrokerService over the shared {@link FakeCluster} state. */
final class FakeBrokerService extends BrokerServiceGrpc.BrokerServiceImplBase {

    private final FakeCluster c;
    private final int brokerId;

    FakeBrokerService(FakeCluster cluster, int brokerId) {
        this.c = cluster;
        this.brokerId = brokerId;
    }

    @Override
    public StreamObserver<ProduceRequest> produce(StreamObserver<ProduceResponse> out) {
        return new StreamObserver<>() {
            @Override
            public void onNext(ProduceRequest request) {
                ProduceResponse response = handleProduce(request);
                if (request.getAcks() != 0) {
                    synchronized (out) {
                        out.onNext(response);
                    }
                }
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onCompleted() {
                synchronized (out) {
                    out.onCompleted();
                }
            }
        };
    }

    private ProduceResponse handleProduce(ProduceRequest request) {
        c.produceRequests.incrementAndGet();
        ProduceResponse.Builder b = ProduceResponse.newBuilder().setCorrelationId(request.getCorrelationId());
        synchronized (c) {
            for (ProduceRequest.PartitionData pd : request.getPartitionsList()) {
                ProduceResponse.PartitionResult.Builder r = ProduceResponse.PartitionResult.newBuilder().setTopic(pd.getTopic())
                    .setPartition(pd.getPartition()).setLogAppendTimeMs(-1);
                List<FakePartition> parts = c.topics.get(pd.getTopic());
                if (parts == null || pd.getPartition() >= parts.size()) {
                    b.addPartitions(r.setError(FakeCluster.error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "no such partition")));
                    continue;
                }
                FakePartition p = parts.get(pd.getPartition());
                if (p.leader != brokerId) {
                    b.addPartitions(r.setError(FakeCluster.error(ErrorCode.NOT_LEADER, "broker " + brokerId + " is not the leader"))
                        .setCurrentLeader(c.hint(p)));
                    continue;
                }
                ErrorCode injected = p.produceErrors.pollFirst();
                if (injected != null) {
                    r.setError(FakeCluster.error(injected, "injected " + injected));
                    if (injected == ErrorCode.NOT_LEADER) {
                        r.setCurrentLeader(c.hint(p));
                    }
                    b.addPartitions(r);
                    continue;
                }
                ByteBuffer bytes = ByteBuffer.wrap(pd.getRecords().toByteArray());
                ValidationResult v = BatchValidator.validate(bytes, 16 * 1024 * 1024);
                if (!v.isOk()) {
                    b.addPartitions(r.setError(FakeCluster.error(v.error(), v.message())));
                    continue;
                }
                FakePartition.AppendResult a = p.append(bytes);
                r.setBaseOffset(a.baseOffset()).setLogStartOffset(p.logStartOffset);
                if (a.error() != ErrorCode.NONE) {
                    r.setError(FakeCluster.error(a.error(), a.message()));
                } else if (!p.afterAppendErrors.isEmpty()) {
                    ErrorCode after = p.afterAppendErrors.pollFirst();
                    r.setBaseOffset(-1).setError(FakeCluster.error(after, "injected after the append: " + after));
                }
                b.addPartitions(r);
            }
        }
        return b.build();
    }

    @Override
    public StreamObserver<FetchRequest> fetch(StreamObserver<FetchResponse> out) {
        return new StreamObserver<>() {
            @Override
            public void onNext(FetchRequest request) {
                c.fetchWire.add(request);
                long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(request.getMaxWaitMs());
                if (!c.fetchSessionsEnabled || !request.hasSessionEpoch()) {
                    answerFetch(request, out, deadlineNs, r -> r);
                    return;
                }
                inSession(request, out, deadlineNs);
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onCompleted() {
                synchronized (out) {
                    out.onCompleted();
                }
            }
        };
    }

    private static String key(String topic, int partition) {
        return topic + "-" + partition;
    }

    /**
     * A fetch in a session, by KIP-227's rules (as the broker's FetchSessionCache keeps them, simplified): epoch 0
     * makes a session of the named partitions (closing the one named), -1 closes it; an incremental fetch must carry
     * the session's epoch, updates what it names, drops what it forgets, reads every partition of the session and is
     * answered with those that have records, an error or a new high watermark.
     */
    private void inSession(FetchRequest request, StreamObserver<FetchResponse> out, long deadlineNs) {
        FakeCluster.FakeSession session;
        FetchRequest toRead;
        int id;
        synchronized (c) {
            int epoch = request.getSessionEpoch();
            if (epoch == 0 || epoch == -1) {
                c.fetchSessions.remove(request.getSessionId());
                if (epoch == -1) {
                    answerFetch(request, out, deadlineNs, r -> r);
                    return;
                }
                id = c.nextSessionId++;
                session = new FakeCluster.FakeSession();
                for (FetchRequest.FetchPartition p : request.getPartitionsList()) {
                    session.partitions.put(key(p.getTopic(), p.getPartition()), p);
                }
                c.fetchSessions.put(id, session);
                toRead = request;
            } else {
                id = request.getSessionId();
                session = c.fetchSessions.get(id);
                ErrorCode refusal = session == null ? ErrorCode.FETCH_SESSION_ID_NOT_FOUND
                    : session.epoch != epoch ? ErrorCode.INVALID_FETCH_SESSION_EPOCH : ErrorCode.NONE;
                if (refusal != ErrorCode.NONE) {
                    synchronized (out) {
                        out.onNext(FetchResponse.newBuilder().setCorrelationId(request.getCorrelationId())
                            .setError(FakeCluster.error(refusal, "session " + id + " epoch " + epoch)).build());
                    }
                    return;
                }
                session.epoch++;
                for (FetchRequest.FetchPartition p : request.getPartitionsList()) {
                    session.partitions.put(key(p.getTopic(), p.getPartition()), p);
                    session.sentHighWatermark.remove(key(p.getTopic(), p.getPartition()));
                }
                for (FetchRequest.ForgottenPartition f : request.getForgottenList()) {
                    session.partitions.remove(key(f.getTopic(), f.getPartition()));
                    session.sentHighWatermark.remove(key(f.getTopic(), f.getPartition()));
                }
                toRead = request.toBuilder().clearPartitions().addAllPartitions(session.partitions.values()).build();
            }
        }
        FakeCluster.FakeSession s = session;
        answerFetch(toRead, out, deadlineNs, response -> {
            FetchResponse.Builder b = response.toBuilder().setSessionId(id).clearPartitions();
            synchronized (c) {
                for (FetchResponse.PartitionData pd : response.getPartitionsList()) {
                    Long sent = s.sentHighWatermark.put(key(pd.getTopic(), pd.getPartition()), pd.getHighWatermark());
                    if (!pd.getRecords().isEmpty() || pd.getError().getCode() != ErrorCode.NONE || sent == null
                        || sent != pd.getHighWatermark()) {
                        b.addPartitions(pd);
                    }
                }
            }
            return b.build();
        });
    }

    /** Answers when min_bytes are there or max_wait passed, re-checking every few ms (a simple long poll). */
    private void answerFetch(FetchRequest request, StreamObserver<FetchResponse> out, long deadlineNs,
                             java.util.function.UnaryOperator<FetchResponse> answer) {
        FetchResponse response = handleFetch(request);
        int bytes = response.getPartitionsList().stream().mapToInt(p -> p.getRecords().size()).sum();
        boolean anyError = response.getPartitionsList().stream().anyMatch(p -> p.getError().getCode() != ErrorCode.NONE);
        if (bytes >= Math.max(1, request.getMinBytes()) || anyError || System.nanoTime() >= deadlineNs) {
            FetchResponse answered = answer.apply(response);
            synchronized (out) {
                out.onNext(answered);
            }
            return;
        }
        c.scheduler.schedule(() -> answerFetch(request, out, deadlineNs, answer), 5, TimeUnit.MILLISECONDS);
    }

    private FetchResponse handleFetch(FetchRequest request) {
        c.fetchRequests.incrementAndGet();
        FetchResponse.Builder b = FetchResponse.newBuilder().setCorrelationId(request.getCorrelationId());
        int budget = request.getMaxBytes() <= 0 ? Integer.MAX_VALUE : request.getMaxBytes();
        synchronized (c) {
            for (FetchRequest.FetchPartition fp : request.getPartitionsList()) {
                FetchResponse.PartitionData.Builder r = FetchResponse.PartitionData.newBuilder().setTopic(fp.getTopic())
                    .setPartition(fp.getPartition());
                List<FakePartition> parts = c.topics.get(fp.getTopic());
                if (parts == null || fp.getPartition() >= parts.size()) {
                    b.addPartitions(r.setError(FakeCluster.error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "no such partition")));
                    continue;
                }
                FakePartition p = parts.get(fp.getPartition());
                r.setHighWatermark(p.nextOffset).setLogStartOffset(p.logStartOffset).setLogEndOffset(p.nextOffset);
                if (p.leader != brokerId) {
                    b.addPartitions(r.setError(FakeCluster.error(ErrorCode.NOT_LEADER, "not the leader")).setCurrentLeader(c.hint(p)));
                    continue;
                }
                ErrorCode injected = p.fetchErrors.pollFirst();
                if (injected != null) {
                    b.addPartitions(r.setError(FakeCluster.error(injected, "injected " + injected)));
                    continue;
                }
                if (fp.getFetchOffset() < p.logStartOffset || fp.getFetchOffset() > p.nextOffset) {
                    b.addPartitions(r.setError(FakeCluster.error(ErrorCode.OFFSET_OUT_OF_RANGE,
                        "offset " + fp.getFetchOffset() + " is outside [" + p.logStartOffset + ", " + p.nextOffset + "]")));
                    continue;
                }
                p.fetchOffsets.add(fp.getFetchOffset());
                byte[] data = p.read(fp.getFetchOffset(), Math.min(fp.getPartitionMaxBytes(), budget));
                if (data.length > 0 && p.corruptNextFetches > 0) {
                    p.corruptNextFetches--;
                    data[data.length - 1] ^= 0x5a;
                } else if (data.length > 0 && fp.getFetchOffset() >= p.corruptFetchesFrom && p.corruptFetchesFromCount > 0) {
                    p.corruptFetchesFromCount--;
                    data[data.length - 1] ^= 0x5a;
                }
                if (data.length > 0 && p.truncateNextFetchesBy > 0) {
                    data = java.util.Arrays.copyOf(data, Math.max(0, data.length - p.truncateNextFetchesBy));
                }
                budget -= data.length;
                b.addPartitions(r.setRecords(ByteString.copyFrom(data)));
            }
        }
        return b.build();
    }

    /** As a leader: moves the log start offset (up to the log end, every offset counting as committed). */
    @Override
    public void deleteRecords(io.raftline.protocol.broker.DeleteRecordsRequest request,
                              StreamObserver<io.raftline.protocol.broker.DeleteRecordsResponse> out) {
        var b = io.raftline.protocol.broker.DeleteRecordsResponse.newBuilder();
        synchronized (c) {
            for (var q : request.getPartitionsList()) {
                var r = io.raftline.protocol.broker.DeleteRecordsResponse.PartitionResult.newBuilder().setTopic(q.getTopic())
                    .setPartition(q.getPartition()).setLowWatermark(-1);
                List<FakePartition> parts = c.topics.get(q.getTopic());
                if (parts == null || q.getPartition() >= parts.size()) {
                    b.addPartitions(r.setError(FakeCluster.error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "no such partition")));
                    continue;
                }
                FakePartition p = parts.get(q.getPartition());
                long offset = q.getOffset() == -1 ? p.nextOffset : q.getOffset();
                if (p.leader != brokerId) {
                    r.setError(FakeCluster.error(ErrorCode.NOT_LEADER, "not the leader")).setCurrentLeader(c.hint(p));
                } else if (offset < 0 || offset > p.nextOffset) {
                    r.setError(FakeCluster.error(ErrorCode.OFFSET_OUT_OF_RANGE, "offset " + offset + " is above the high watermark "
                        + p.nextOffset));
                } else {
                    p.deleteRecordsBefore(offset);
                    r.setLowWatermark(p.logStartOffset);
                }
                b.addPartitions(r);
            }
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void listOffsets(ListOffsetsRequest request, StreamObserver<ListOffsetsResponse> out) {
        ListOffsetsResponse.Builder b = ListOffsetsResponse.newBuilder();
        synchronized (c) {
            for (ListOffsetsRequest.PartitionQuery q : request.getPartitionsList()) {
                ListOffsetsResponse.PartitionResult.Builder r = ListOffsetsResponse.PartitionResult.newBuilder().setTopic(q.getTopic())
                    .setPartition(q.getPartition()).setTimestamp(-1).setOffset(-1);
                List<FakePartition> parts = c.topics.get(q.getTopic());
                if (parts == null || q.getPartition() >= parts.size()) {
                    b.addPartitions(r.setError(FakeCluster.error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "no such partition")));
                    continue;
                }
                FakePartition p = parts.get(q.getPartition());
                if (p.leader != brokerId) {
                    b.addPartitions(r.setError(FakeCluster.error(ErrorCode.NOT_LEADER, "not the leader")).setCurrentLeader(c.hint(p)));
                    continue;
                }
                r.setLeaderEpoch(p.leaderEpoch);
                if (q.getTimestamp() == -2) {
                    r.setOffset(p.logStartOffset);
                } else if (q.getTimestamp() == -1) {
                    r.setOffset(p.nextOffset);
                } else {
                    long[] found = p.offsetForTime(q.getTimestamp());
                    if (found != null) {
                        r.setOffset(found[0]).setTimestamp(found[1]);
                    }
                }
                b.addPartitions(r);
            }
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void metadata(MetadataRequest request, StreamObserver<MetadataResponse> out) {
        if (c.failingMetadata.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            c.metadataRequests.incrementAndGet();
            out.onError(c.metadataFailure.asRuntimeException());
            return;
        }
        c.metadataAnsweredBy.merge(brokerId, 1, Integer::sum);
        out.onNext(c.metadata(request));
        out.onCompleted();
    }

    @Override
    public void initProducerId(InitProducerIdRequest request, StreamObserver<InitProducerIdResponse> out) {
        InitProducerIdResponse.Builder b = InitProducerIdResponse.newBuilder();
        if (request.getProducerId() >= 0) {
            b.setProducerId(request.getProducerId()).setProducerEpoch(request.getProducerEpoch() + 1);
        } else {
            b.setProducerId(c.nextProducerId.getAndIncrement()).setProducerEpoch(0);
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    private static boolean assignmentsInOrder(CreatableTopic t) {
        for (int i = 0; i < t.getAssignmentsCount(); i++) {
            if (t.getAssignments(i).getPartition() != i) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void createTopics(CreateTopicsRequest request, StreamObserver<CreateTopicsResponse> out) {
        CreateTopicsResponse.Builder b = CreateTopicsResponse.newBuilder();
        ErrorCode top = c.nextAdminError();
        if (top != ErrorCode.NONE) {
            out.onNext(b.setError(FakeCluster.error(top, "injected " + top)).build());
            out.onCompleted();
            return;
        }
        synchronized (c) {
            for (CreatableTopic t : request.getTopicsList()) {
                CreateTopicsResponse.Result.Builder r = CreateTopicsResponse.Result.newBuilder().setName(t.getName());
                int partitions = t.getAssignmentsCount() > 0 ? t.getAssignmentsCount() : t.getNumPartitions() < 0 ? 1 : t.getNumPartitions();
                int rf = t.getReplicationFactor() < 0 ? 1 : t.getReplicationFactor();
                if (!t.getName().matches("[a-zA-Z0-9._-]{1,249}") || t.getName().equals(".") || t.getName().equals("..")) {
                    r.setError(FakeCluster.error(ErrorCode.INVALID_TOPIC, "Topic name '" + t.getName() + "' is illegal"));
                } else if (c.topics.containsKey(t.getName())) {
                    r.setError(FakeCluster.error(ErrorCode.TOPIC_ALREADY_EXISTS, "Topic '" + t.getName() + "' already exists."));
                } else if (!assignmentsInOrder(t)) {
                    // as the controller: explicit assignments list partitions 0..n-1 in order
                    r.setError(FakeCluster.error(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "assignments must list partitions 0.."
                        + (t.getAssignmentsCount() - 1) + " in order"));
                } else if (partitions <= 0) {
                    r.setError(FakeCluster.error(ErrorCode.INVALID_PARTITIONS, "Number of partitions must be larger than 0."));
                } else if (rf > c.ports.size()) {
                    r.setError(FakeCluster.error(ErrorCode.INVALID_REPLICATION_FACTOR, "Replication factor: " + rf
                        + " larger than available brokers: " + c.ports.size() + "."));
                } else {
                    if (!request.getValidateOnly()) {
                        c.createTopic(t.getName(), partitions);
                        c.topicConfigs.get(t.getName()).putAll(t.getConfigsMap());
                    }
                    r.setNumPartitions(partitions).setReplicationFactor(rf);
                }
                b.addTopics(r);
            }
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void deleteTopics(DeleteTopicsRequest request, StreamObserver<DeleteTopicsResponse> out) {
        DeleteTopicsResponse.Builder b = DeleteTopicsResponse.newBuilder();
        synchronized (c) {
            for (String name : request.getNamesList()) {
                DeleteTopicsResponse.Result.Builder r = DeleteTopicsResponse.Result.newBuilder().setName(name);
                if (c.topics.remove(name) == null) {
                    r.setError(FakeCluster.error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "Topic '" + name + "' does not exist"));
                }
                b.addTopics(r);
            }
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void createPartitions(CreatePartitionsRequest request, StreamObserver<CreatePartitionsResponse> out) {
        CreatePartitionsResponse.Builder b = CreatePartitionsResponse.newBuilder();
        synchronized (c) {
            for (CreatePartitionsRequest.Topic t : request.getTopicsList()) {
                CreatePartitionsResponse.Result.Builder r = CreatePartitionsResponse.Result.newBuilder().setName(t.getName());
                List<FakePartition> parts = c.topics.get(t.getName());
                if (parts == null) {
                    r.setError(FakeCluster.error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "no such topic"));
                } else if (t.getCount() <= parts.size()) {
                    r.setError(FakeCluster.error(ErrorCode.INVALID_PARTITIONS, "Topic currently has " + parts.size()
                        + " partitions, which is higher than or equal to the requested " + t.getCount() + "."));
                } else {
                    for (int p = parts.size(); p < t.getCount(); p++) {
                        parts.add(new FakePartition(t.getName(), p, 1, new ArrayList<>(c.ports.keySet())));
                    }
                }
                b.addTopics(r);
            }
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void alterConfigs(AlterConfigsRequest request, StreamObserver<AlterConfigsResponse> out) {
        synchronized (c) {
            for (AlterConfigsRequest.Op op : request.getOpsList()) {
                if (op.getResourceType() != ConfigResourceType.TOPIC || !c.topics.containsKey(op.getResourceName())) {
                    out.onNext(AlterConfigsResponse.newBuilder().setError(FakeCluster.error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                        "no such topic " + op.getResourceName())).build());
                    out.onCompleted();
                    return;
                }
            }
            for (AlterConfigsRequest.Op op : request.getOpsList()) {
                Map<String, String> cfg = c.topicConfigs.get(op.getResourceName());
                if (op.hasValue()) {
                    cfg.put(op.getName(), op.getValue());
                } else {
                    cfg.remove(op.getName());
                }
            }
        }
        out.onNext(AlterConfigsResponse.getDefaultInstance());
        out.onCompleted();
    }

    @Override
    public void describeConfigs(DescribeConfigsRequest request, StreamObserver<DescribeConfigsResponse> out) {
        DescribeConfigsResponse.Builder b = DescribeConfigsResponse.newBuilder();
        synchronized (c) {
            Map<String, String> cfg = c.topicConfigs.get(request.getResourceName());
            if (cfg == null) {
                b.setError(FakeCluster.error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "no such topic " + request.getResourceName()));
            } else {
                b.addConfigs(DescribeConfigsResponse.ConfigEntry.newBuilder().setName("retention.ms")
                    .setValue(cfg.getOrDefault("retention.ms", "604800000")).setSource(cfg.containsKey("retention.ms") ? "topic" : "default"));
                cfg.forEach((k, v) -> {
                    if (!k.equals("retention.ms")) {
                        b.addConfigs(DescribeConfigsResponse.ConfigEntry.newBuilder().setName(k).setValue(v).setSource("topic"));
                    }
                });
            }
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void electLeaders(ElectLeadersRequest request, StreamObserver<ElectLeadersResponse> out) {
        ElectLeadersResponse.Builder b = ElectLeadersResponse.newBuilder();
        synchronized (c) {
            for (io.raftline.protocol.TopicPartition tp : request.getPartitionsList()) {
                FakePartition p = c.partition(tp.getTopic(), tp.getPartition());
                ElectLeadersResponse.Result.Builder r = ElectLeadersResponse.Result.newBuilder().setPartition(tp);
                int preferred = p.replicas.get(0);
                if (p.leader == preferred) {
                    r.setError(FakeCluster.error(ErrorCode.ELECTION_NOT_NEEDED, "already the preferred leader"));
                } else {
                    p.leader = preferred;
                    p.leaderEpoch++;
                }
                b.addPartitions(r.setLeader(p.leader));
            }
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void alterPartitionReassignments(AlterPartitionReassignmentsRequest request,
                                            StreamObserver<AlterPartitionReassignmentsResponse> out) {
        AlterPartitionReassignmentsResponse.Builder b = AlterPartitionReassignmentsResponse.newBuilder();
        synchronized (c) {
            for (AlterPartitionReassignmentsRequest.Reassignment ra : request.getReassignmentsList()) {
                FakePartition p = c.partition(ra.getPartition().getTopic(), ra.getPartition().getPartition());
                AlterPartitionReassignmentsResponse.Result.Builder r = AlterPartitionReassignmentsResponse.Result.newBuilder()
                    .setPartition(ra.getPartition());
                if (ra.hasReplicas()) {
                    List<Integer> target = ra.getReplicas().getValuesList();
                    p.adding = target.stream().filter(id -> !p.replicas.contains(id)).toList();
                    p.removing = p.replicas.stream().filter(id -> !target.contains(id)).toList();
                } else if (p.adding.isEmpty() && p.removing.isEmpty()) {
                    r.setError(FakeCluster.error(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, "nothing to cancel"));
                } else {
                    p.adding = List.of();
                    p.removing = List.of();
                }
                b.addPartitions(r);
            }
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void describeQuorum(DescribeQuorumRequest request, StreamObserver<DescribeQuorumResponse> out) {
        DescribeQuorumResponse.Builder b = DescribeQuorumResponse.newBuilder().setLeaderId(c.controllerId).setTerm(3)
            .setControllerEpoch(3).setCommitIndex(42);
        c.ports.forEach((id, port) -> b.addVoters(DescribeQuorumResponse.Peer.newBuilder().setId(id).setEndpoint("127.0.0.1:" + port)
            .setLagEntries(0).setLastContactMs(id == c.controllerId ? 0 : 5)));
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void describeLogs(DescribeLogsRequest request, StreamObserver<DescribeLogsResponse> out) {
        DescribeLogsResponse.Builder b = DescribeLogsResponse.newBuilder();
        synchronized (c) {
            for (List<FakePartition> parts : c.topics.values()) {
                for (FakePartition p : parts) {
                    if (p.replicas.contains(brokerId)) {
                        b.addReplicas(DescribeLogsResponse.ReplicaLog.newBuilder().setTopic(p.topic).setPartition(p.partition)
                            .setLogStartOffset(p.logStartOffset).setLogEndOffset(p.nextOffset).setHighWatermark(p.nextOffset)
                            .setSizeBytes(p.sizeBytes()).setIsLeader(p.leader == brokerId));
                    }
                }
            }
        }
        out.onNext(b.build());
        out.onCompleted();
    }
}
