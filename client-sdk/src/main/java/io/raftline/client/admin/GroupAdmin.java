package io.raftline.client.admin;

import io.raftline.grpc.TransportSecurity;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.raftline.client.common.Cluster;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.client.consumer.assignor.ConsumerProtocol;
import io.raftline.client.errors.Errors;
import io.raftline.client.errors.InterruptException;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.errors.RetriableException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.internals.metadata.Metadata;
import io.raftline.client.internals.net.GrpcErrors;
import io.raftline.common.Time;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.group.DeleteGroupsRequest;
import io.raftline.protocol.group.DeleteGroupsResponse;
import io.raftline.protocol.group.DescribeGroupsRequest;
import io.raftline.protocol.group.DescribeGroupsResponse;
import io.raftline.protocol.group.FindCoordinatorRequest;
import io.raftline.protocol.group.FindCoordinatorResponse;
import io.raftline.protocol.group.GroupServiceGrpc;
import io.raftline.protocol.group.ListGroupsRequest;
import io.raftline.protocol.group.ListGroupsResponse;
import io.raftline.protocol.group.OffsetCommitRequest;
import io.raftline.protocol.group.OffsetCommitResponse;
import io.raftline.protocol.group.OffsetFetchRequest;
import io.raftline.protocol.group.OffsetFetchResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * The admin's group operations over the brokers' GroupService. Listing asks every live broker (each answers for the
 * groups it coordinates); everything else goes to the group's coordinator, found with FindCoordinator and looked up
 * again while the answer is NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE or COORDINATOR_LOAD_IN_PROGRESS (a coordinator
 * that just moved), until the call's deadline. The calls block, so they run on this object's own threads.
 */
final class GroupAdmin implements AutoCloseable {

    private static final Set<ErrorCode> COORDINATOR_RETRIABLE = Set.of(ErrorCode.NOT_COORDINATOR,
        ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);

    private final Metadata metadata;
    private final String clientId;
    private final Time time;
    private final long apiTimeoutMs;
    private final long requestTimeoutMs;
    private final long backoffMs;
    private final ExecutorService executor;
    private final Map<String, ManagedChannel> channels = new HashMap<>();

    private final TransportSecurity security;

    GroupAdmin(Metadata metadata, String clientId, Time time, long apiTimeoutMs, long requestTimeoutMs, long backoffMs,
               TransportSecurity security) {
        this.security = security;
        this.metadata = metadata;
        this.clientId = clientId;
        this.time = time;
        this.apiTimeoutMs = apiTimeoutMs;
        this.requestTimeoutMs = requestTimeoutMs;
        this.backoffMs = Math.max(10, backoffMs);
        this.executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "raftline-admin-groups");
            t.setDaemon(true);
            return t;
        });
    }

    private <T> CompletableFuture<T> async(java.util.function.Supplier<T> work) {
        return CompletableFuture.supplyAsync(work, executor);
    }

    // ---- operations ----

    CompletableFuture<List<ConsumerGroupListing>> list() {
        return async(() -> {
            long deadline = time.milliseconds() + apiTimeoutMs;
            while (true) {
                List<Node> brokers = liveBrokers(deadline);
                Map<String, ConsumerGroupListing> out = new TreeMap<>();
                RaftlineException failure = null;
                for (Node b : brokers) {
                    try {
                        ListGroupsResponse r = stub(b, deadline).listGroups(ListGroupsRequest.getDefaultInstance());
                        if (r.getError().getCode() != ErrorCode.NONE) {
                            failure = Errors.toException(r.getError());
                            continue;
                        }
                        for (ListGroupsResponse.Group g : r.getGroupsList()) {
                            out.put(g.getGroupId(), new ConsumerGroupListing(g.getGroupId(), g.getState(), r.getCoordinatorId()));
                        }
                    } catch (RuntimeException e) {
                        failure = GrpcErrors.toException(e, b.address());
                        metadata.requestUpdate();
                    }
                }
                if (failure == null) {
                    return new ArrayList<>(out.values());
                }
                // A broker that is loading its groups, or one that just died: ask again until the deadline.
                backoffOrFail(deadline, "list consumer groups", failure);
            }
        });
    }

    CompletableFuture<ConsumerGroupDescription> describe(String groupId) {
        return async(() -> {
            DescribeGroupsRequest req = DescribeGroupsRequest.newBuilder().addGroupIds(groupId).build();
            Answer<DescribeGroupsResponse> a = atCoordinator(groupId, "describe group " + groupId,
                s -> s.describeGroups(req), r -> r.getGroups(0).getError().getCodeValue());
            DescribeGroupsResponse.Group g = a.response().getGroups(0);
            if (g.getError().getCode() != ErrorCode.NONE) {
                throw Errors.toException(g.getError().getCode(), "group " + groupId + ": " + g.getError().getMessage());
            }
            List<MemberDescription> members = new ArrayList<>();
            for (DescribeGroupsResponse.Member m : g.getMembersList()) {
                List<TopicPartition> assignment = m.getAssignment().isEmpty() || !"consumer".equals(g.getProtocolType())
                    ? List.of()
                    : new ArrayList<>(new TreeSet<>(ConsumerProtocol.deserializeAssignment(m.getAssignment().toByteArray()).partitions()));
                members.add(new MemberDescription(m.getMemberId(), m.getClientId(), m.getClientHost(), assignment));
            }
            return new ConsumerGroupDescription(g.getGroupId(), g.getState(), g.getProtocolType(), g.getProtocol(),
                g.getGenerationId(), a.coordinator(), members);
        });
    }

    CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> listOffsets(String groupId) {
        return async(() -> {
            OffsetFetchRequest req = OffsetFetchRequest.newBuilder().setGroupId(groupId).build();
            OffsetFetchResponse r = atCoordinator(groupId, "list offsets of group " + groupId, s -> s.offsetFetch(req),
                x -> x.getError().getCodeValue()).response();
            if (r.getError().getCode() != ErrorCode.NONE) {
                throw Errors.toException(r.getError());
            }
            Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
            for (OffsetFetchResponse.TopicResult t : r.getTopicsList()) {
                for (OffsetFetchResponse.PartitionResult p : t.getPartitionsList()) {
                    if (p.getError().getCode() != ErrorCode.NONE) {
                        throw Errors.toException(p.getError());
                    }
                    if (p.getCommittedOffset() >= 0) {
                        out.put(new TopicPartition(t.getName(), p.getPartition()), new OffsetAndMetadata(p.getCommittedOffset(),
                            p.getCommittedLeaderEpoch() < 0 ? Optional.empty() : Optional.of(p.getCommittedLeaderEpoch()),
                            p.getMetadata()));
                    }
                }
            }
            return out;
        });
    }

    CompletableFuture<Void> delete(String groupId) {
        return async(() -> {
            DeleteGroupsRequest req = DeleteGroupsRequest.newBuilder().addGroupIds(groupId).build();
            DeleteGroupsResponse r = atCoordinator(groupId, "delete group " + groupId, s -> s.deleteGroups(req),
                x -> x.getResults(0).getError().getCodeValue()).response();
            if (r.getResults(0).getError().getCode() != ErrorCode.NONE) {
                throw Errors.toException(r.getResults(0).getError().getCode(), "cannot delete group " + groupId + ": "
                    + (r.getResults(0).getError().getCode() == ErrorCode.NON_EMPTY_GROUP ? "it has active members"
                    : r.getResults(0).getError().getMessage()));
            }
            return null;
        });
    }

    CompletableFuture<Void> alterOffsets(String groupId, Map<TopicPartition, OffsetAndMetadata> offsets) {
        return async(() -> {
            OffsetCommitRequest.Builder b = OffsetCommitRequest.newBuilder().setGroupId(groupId).setGenerationId(-1);
            Map<String, OffsetCommitRequest.Topic.Builder> topics = new TreeMap<>();
            new TreeMap<>(offsets).forEach((tp, o) -> topics.computeIfAbsent(tp.topic(),
                t -> OffsetCommitRequest.Topic.newBuilder().setName(t)).addPartitions(OffsetCommitRequest.Partition.newBuilder()
                    .setPartition(tp.partition()).setCommittedOffset(o.offset())
                    .setCommittedLeaderEpoch(o.leaderEpoch().orElse(-1)).setMetadata(o.metadata())));
            topics.values().forEach(b::addTopics);
            OffsetCommitRequest req = b.build();
            OffsetCommitResponse r = atCoordinator(groupId, "alter offsets of group " + groupId, s -> s.offsetCommit(req),
                x -> x.getError().getCodeValue()).response();
            if (r.getError().getCode() != ErrorCode.NONE) {
                throw alterError(groupId, r.getError().getCode(), r.getError().getMessage());
            }
            for (OffsetCommitResponse.TopicResult t : r.getTopicsList()) {
                for (OffsetCommitResponse.PartitionResult p : t.getPartitionsList()) {
                    if (p.getError().getCode() != ErrorCode.NONE) {
                        throw alterError(groupId, p.getError().getCode(), t.getName() + "-" + p.getPartition() + ": "
                            + p.getError().getMessage());
                    }
                }
            }
            return null;
        });
    }

    private static RaftlineException alterError(String groupId, ErrorCode code, String message) {
        if (code == ErrorCode.UNKNOWN_MEMBER_ID || code == ErrorCode.ILLEGAL_GENERATION || code == ErrorCode.REBALANCE_IN_PROGRESS) {
            return Errors.toException(code, "cannot set the offsets of group " + groupId
                + ": it has active members; stop its consumers first");
        }
        return Errors.toException(code, "cannot set the offsets of group " + groupId + ": " + message);
    }

    // ---- coordinator lookup and retries ----

    private record Answer<R>(R response, Node coordinator) {
    }

    /**
     * Sends {@code call} to the group's coordinator until it answers with anything but a coordinator error (or the
     * deadline passes); {@code errorOf} reads the answer's error code (as its wire number).
     */
    private <R> Answer<R> atCoordinator(String groupId, String what, Function<GroupServiceGrpc.GroupServiceBlockingStub, R> call,
                                        ToIntFunction<R> errorOf) {
        long deadline = time.milliseconds() + apiTimeoutMs;
        while (true) {
            RaftlineException failure;
            Node coordinator = null;
            try {
                coordinator = findCoordinator(groupId, deadline);
                R r = call.apply(stub(coordinator, deadline));
                ErrorCode code = ErrorCode.forNumber(errorOf.applyAsInt(r));
                if (code == null || !COORDINATOR_RETRIABLE.contains(code)) {
                    return new Answer<>(r, coordinator);
                }
                failure = Errors.toException(code, what + ": " + code);
            } catch (RaftlineException e) {
                failure = e;
            } catch (RuntimeException e) {
                failure = GrpcErrors.toException(e, coordinator == null ? "a broker" : coordinator.address());
            }
            if (!(failure instanceof RetriableException) && !(failure instanceof TimeoutException)) {
                throw failure;
            }
            metadata.requestUpdate();
            backoffOrFail(deadline, what, failure);
        }
    }

    private Node findCoordinator(String groupId, long deadline) {
        FindCoordinatorRequest req = FindCoordinatorRequest.newBuilder().setGroupId(groupId).build();
        RaftlineException last = null;
        for (Node b : liveBrokers(deadline)) {
            try {
                FindCoordinatorResponse r = stub(b, deadline).findCoordinator(req);
                if (r.getError().getCode() == ErrorCode.NONE) {
                    return new Node(r.getNodeId(), r.getEndpoint().getHost(), r.getEndpoint().getPort(), null);
                }
                last = Errors.toException(r.getError());
            } catch (RuntimeException e) {
                last = GrpcErrors.toException(e, b.address());
            }
        }
        throw last != null ? last : new TimeoutException("no broker answered FindCoordinator for group " + groupId);
    }

    /** The brokers of a fresh metadata snapshot (the bootstrap addresses until one arrived). */
    private List<Node> liveBrokers(long deadline) {
        Cluster c;
        try {
            c = metadata.refresh().get(Math.max(1, deadline - time.milliseconds()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        } catch (ExecutionException e) {
            throw GrpcErrors.toException(e, "metadata");
        } catch (java.util.concurrent.TimeoutException e) {
            throw new TimeoutException("no metadata within the deadline", e);
        }
        List<Node> out = new ArrayList<>();
        for (Node n : c.nodes()) {
            if (n.id() != Node.NO_ID) {
                out.add(n);
            }
        }
        if (out.isEmpty()) {
            out.add(metadata.pickNode());
        }
        return out;
    }

    private void backoffOrFail(long deadline, String what, RaftlineException last) {
        long left = deadline - time.milliseconds();
        if (left <= 0) {
            throw new TimeoutException(what + " did not complete in time: " + last.getMessage(), last);
        }
        try {
            time.sleep(Math.min(left, backoffMs));
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        }
    }

    private GroupServiceGrpc.GroupServiceBlockingStub stub(Node node, long deadline) {
        ManagedChannel ch;
        synchronized (channels) {
            ch = channels.computeIfAbsent(node.address(), a -> security.secure(NettyChannelBuilder.forAddress(node.host(), node.port()))
                .userAgent(clientId.isEmpty() ? "raftline-admin" : "raftline-admin/" + clientId).build());
        }
        long timeout = Math.max(1, Math.min(requestTimeoutMs, deadline - time.milliseconds()));
        return GroupServiceGrpc.newBlockingStub(ch).withDeadlineAfter(timeout, TimeUnit.MILLISECONDS);
    }

    static <K> Map<K, CompletableFuture<Void>> each(Collection<K> keys, Function<K, CompletableFuture<Void>> op) {
        Map<K, CompletableFuture<Void>> out = new LinkedHashMap<>();
        keys.forEach(k -> out.put(k, op.apply(k)));
        return out;
    }

    @Override
    public void close() {
        executor.shutdownNow();
        synchronized (channels) {
            channels.values().forEach(ManagedChannel::shutdownNow);
            channels.clear();
        }
    }
}
