package io.raftline.broker.group;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.raftline.broker.security.RequestAuthorizer;
import io.raftline.protocol.Error;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.ResourceType;
import io.raftline.protocol.group.DeleteGroupsRequest;
import io.raftline.protocol.group.DeleteGroupsResponse;
import io.raftline.protocol.group.DescribeGroupsRequest;
import io.raftline.protocol.group.DescribeGroupsResponse;
import io.raftline.protocol.group.FindCoordinatorRequest;
import io.raftline.protocol.group.FindCoordinatorResponse;
import io.raftline.protocol.group.GroupServiceGrpc;
import io.raftline.protocol.group.HeartbeatRequest;
import io.raftline.protocol.group.HeartbeatResponse;
import io.raftline.protocol.group.JoinGroupRequest;
import io.raftline.protocol.group.JoinGroupResponse;
import io.raftline.protocol.group.LeaveGroupRequest;
import io.raftline.protocol.group.LeaveGroupResponse;
import io.raftline.protocol.group.ListGroupsRequest;
import io.raftline.protocol.group.ListGroupsResponse;
import io.raftline.protocol.group.OffsetCommitRequest;
import io.raftline.protocol.group.OffsetCommitResponse;
import io.raftline.protocol.group.OffsetFetchRequest;
import io.raftline.protocol.group.OffsetFetchResponse;
import io.raftline.protocol.group.SyncGroupRequest;
import io.raftline.protocol.group.SyncGroupResponse;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GroupService on the broker's gRPC listener: each call goes to the {@link GroupCoordinator} as is. Nothing here
 * blocks: delayed answers (JoinGroup, SyncGroup, OffsetCommit, DeleteGroups) are sent when the coordinator completes
 * them. Errors travel as ErrorCodes in the responses; a gRPC status means the coordinator itself broke.
 *
 * <p>Register it with {@link #serviceDefinition(GroupCoordinator)}, which also records each caller's address for
 * DescribeGroups.
 */
public final class GroupRpcService extends GroupServiceGrpc.GroupServiceImplBase {

    private static final Logger LOG = LoggerFactory.getLogger(GroupRpcService.class);
    private static final Context.Key<String> CLIENT_HOST = Context.key("raftline-client-host");

    private final GroupCoordinator coordinator;
    private final RequestAuthorizer authorizer;

    public GroupRpcService(GroupCoordinator coordinator, RequestAuthorizer authorizer) {
        this.coordinator = coordinator;
        this.authorizer = authorizer;
    }

    /** The service, wrapped so that JoinGroup learns the caller's address: what a broker adds to its gRPC server. */
    public static ServerServiceDefinition serviceDefinition(GroupCoordinator coordinator, RequestAuthorizer authorizer) {
        return ServerInterceptors.intercept(new GroupRpcService(coordinator, authorizer), new ClientHostInterceptor());
    }

    /** Null when the caller may do {@code operation} to the group; else the error. */
    private Error group(Operation operation, String groupId) {
        return authorizer.check(operation, ResourceType.GROUP, groupId);
    }

    /** Puts the remote address, Kafka-style ("/10.0.0.5"), into the call's context. */
    private static final class ClientHostInterceptor implements ServerInterceptor {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
            String host = remote instanceof InetSocketAddress isa && isa.getAddress() != null
                ? "/" + isa.getAddress().getHostAddress() : remote == null ? "" : remote.toString();
            return Contexts.interceptCall(Context.current().withValue(CLIENT_HOST, host), call, headers, next);
        }
    }

    @Override
    public void findCoordinator(FindCoordinatorRequest request, StreamObserver<FindCoordinatorResponse> observer) {
        Error denied = group(Operation.DESCRIBE, request.getGroupId());
        if (denied != null) {
            answer(observer, FindCoordinatorResponse.newBuilder().setError(denied).setNodeId(-1).build());
            return;
        }
        now(observer, () -> coordinator.findCoordinator(request));
    }

    @Override
    public void joinGroup(JoinGroupRequest request, StreamObserver<JoinGroupResponse> observer) {
        Error denied = group(Operation.READ, request.getGroupId());
        if (denied != null) {
            answer(observer, JoinGroupResponse.newBuilder().setError(denied).setGenerationId(-1).build());
            return;
        }
        String host = CLIENT_HOST.get();
        later(observer, () -> coordinator.joinGroup(request, host == null ? "" : host));
    }

    @Override
    public void syncGroup(SyncGroupRequest request, StreamObserver<SyncGroupResponse> observer) {
        Error denied = group(Operation.READ, request.getGroupId());
        if (denied != null) {
            answer(observer, SyncGroupResponse.newBuilder().setError(denied).build());
            return;
        }
        later(observer, () -> coordinator.syncGroup(request));
    }

    @Override
    public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> observer) {
        Error denied = group(Operation.READ, request.getGroupId());
        if (denied != null) {
            answer(observer, HeartbeatResponse.newBuilder().setError(denied).build());
            return;
        }
        now(observer, () -> coordinator.heartbeat(request));
    }

    @Override
    public void leaveGroup(LeaveGroupRequest request, StreamObserver<LeaveGroupResponse> observer) {
        Error denied = group(Operation.READ, request.getGroupId());
        if (denied != null) {
            answer(observer, LeaveGroupResponse.newBuilder().setError(denied).build());
            return;
        }
        now(observer, () -> coordinator.leaveGroup(request));
    }

    @Override
    public void offsetCommit(OffsetCommitRequest request, StreamObserver<OffsetCommitResponse> observer) {
        Error denied = group(Operation.READ, request.getGroupId());
        if (denied == null) {
            denied = authorizer.checkAll(Operation.READ, ResourceType.TOPIC,
                request.getTopicsList().stream().map(OffsetCommitRequest.Topic::getName).toList());
        }
        if (denied != null) {
            answer(observer, OffsetCommitResponse.newBuilder().setError(denied).build());
            return;
        }
        later(observer, () -> coordinator.commitOffsets(request));
    }

    @Override
    public void offsetFetch(OffsetFetchRequest request, StreamObserver<OffsetFetchResponse> observer) {
        Error denied = group(Operation.DESCRIBE, request.getGroupId());
        if (denied == null) {
            denied = authorizer.checkAll(Operation.DESCRIBE, ResourceType.TOPIC,
                request.getTopicsList().stream().map(OffsetFetchRequest.Topic::getName).toList());
        }
        if (denied != null) {
            answer(observer, OffsetFetchResponse.newBuilder().setError(denied).build());
            return;
        }
        if (authorizer.enabled() && request.getTopicsCount() == 0) {
            // every topic the group has an offset for: only those the caller may describe
            now(observer, () -> visibleTopics(coordinator.fetchOffsets(request)));
            return;
        }
        now(observer, () -> coordinator.fetchOffsets(request));
    }

    @Override
    public void listGroups(ListGroupsRequest request, StreamObserver<ListGroupsResponse> observer) {
        if (authorizer.allowed(Operation.DESCRIBE, ResourceType.CLUSTER, io.raftline.acl.Authorizer.CLUSTER_NAME)) {
            now(observer, () -> coordinator.listGroups(request));
            return;
        }
        // as Kafka: without DESCRIBE on the cluster, the groups the caller may describe
        now(observer, () -> {
            ListGroupsResponse all = coordinator.listGroups(request);
            List<ListGroupsResponse.Group> visible = all.getGroupsList().stream()
                .filter(g -> group(Operation.DESCRIBE, g.getGroupId()) == null).toList();
            return all.toBuilder().clearGroups().addAllGroups(visible).build();
        });
    }

    private OffsetFetchResponse visibleTopics(OffsetFetchResponse all) {
        List<OffsetFetchResponse.TopicResult> visible = all.getTopicsList().stream()
            .filter(t -> authorizer.allowed(Operation.DESCRIBE, ResourceType.TOPIC, t.getName())).toList();
        return all.toBuilder().clearTopics().addAllTopics(visible).build();
    }

    @Override
    public void describeGroups(DescribeGroupsRequest request, StreamObserver<DescribeGroupsResponse> observer) {
        for (String id : request.getGroupIdsList()) {
            Error denied = group(Operation.DESCRIBE, id);
            if (denied != null) {
                answer(observer, DescribeGroupsResponse.newBuilder().addGroups(DescribeGroupsResponse.Group.newBuilder()
                    .setGroupId(id).setError(denied).setState("Dead")).build());
                return;
            }
        }
        now(observer, () -> coordinator.describeGroups(request));
    }

    @Override
    public void deleteGroups(DeleteGroupsRequest request, StreamObserver<DeleteGroupsResponse> observer) {
        for (String id : request.getGroupIdsList()) {
            Error denied = group(Operation.DELETE, id);
            if (denied != null) {
                answer(observer, DeleteGroupsResponse.newBuilder().addResults(DeleteGroupsResponse.Result.newBuilder()
                    .setGroupId(id).setError(denied)).build());
                return;
            }
        }
        later(observer, () -> coordinator.deleteGroups(request));
    }

    private static <T> void answer(StreamObserver<T> observer, T response) {
        observer.onNext(response);
        observer.onCompleted();
    }

    private static <T> void now(StreamObserver<T> observer, Supplier<T> call) {
        T response;
        try {
            response = call.get();
        } catch (RuntimeException e) {
            fail(observer, e);
            return;
        }
        observer.onNext(response);
        observer.onCompleted();
    }

    private static <T> void later(StreamObserver<T> observer, Supplier<CompletableFuture<T>> call) {
        CompletableFuture<T> f;
        try {
            f = call.get();
        } catch (RuntimeException e) {
            fail(observer, e);
            return;
        }
        f.whenComplete((response, e) -> {
            if (e != null) {
                fail(observer, e);
                return;
            }
            try {
                observer.onNext(response);
                observer.onCompleted();
            } catch (RuntimeException gone) {
                // The caller gave up (deadline, disconnect) while its answer was pending; the coordinator already acted.
                LOG.debug("a delayed group answer found its call cancelled: {}", gone.toString());
            }
        });
    }

    private static void fail(StreamObserver<?> observer, Throwable e) {
        LOG.error("group coordinator call failed", e);
        observer.onError(Status.INTERNAL.withDescription("group coordinator failure: " + e).withCause(e).asRuntimeException());
    }
}
