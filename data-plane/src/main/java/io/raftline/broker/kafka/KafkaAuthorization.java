package io.raftline.broker.kafka;

import io.raftline.acl.Authorizer;
import io.raftline.broker.security.RequestAuthorizer;
import io.raftline.protocol.Error;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.ResourceType;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * ACLs on the Kafka listener's requests that do not pass through the broker's gRPC service (produce, fetch, list
 * offsets, the group APIs, deleting groups and their offsets, describing producers, listing quotas and reassignments):
 * each is checked whole before it runs, and a refused one is answered with Kafka's own error response for it
 * (TOPIC_/GROUP_/CLUSTER_AUTHORIZATION_FAILED) with nothing done.
 * The others (metadata, producer ids, topic and config admin, records, leaders, log dirs, ACLs, SCRAM users, quota
 * changes) are checked by the service itself, as the listener's caller.
 */
final class KafkaAuthorization {

    private record Need(Operation operation, ResourceType type, String name) {
    }

    private final RequestAuthorizer authorizer;

    KafkaAuthorization(RequestAuthorizer authorizer) {
        this.authorizer = authorizer;
    }

    /** The answer refusing {@code request}, or null when its caller may make it (or the authorizer is off). */
    ApiMessage refusal(KafkaRequest request, RequestAuthorizer.Caller caller) {
        if (!authorizer.enabled()) {
            return null;
        }
        for (Need need : needs(request)) {
            Error denied = authorizer.check(caller, need.operation(), need.type(), need.name());
            if (denied != null) {
                return request.body().getErrorResponse(0, exception(need.type(), denied.getMessage())).data();
            }
        }
        return null;
    }

    private static ApiException exception(ResourceType type, String message) {
        return switch (type) {
            case TOPIC -> new TopicAuthorizationException(message);
            case GROUP -> new GroupAuthorizationException(message);
            default -> new ClusterAuthorizationException(message);
        };
    }

    private static List<Need> needs(KafkaRequest request) {
        ApiMessage body = request.body().data();
        List<Need> out = new ArrayList<>();
        switch (request.apiKey()) {
            case PRODUCE -> ((ProduceRequestData) body).topicData()
                .forEach(t -> out.add(new Need(Operation.WRITE, ResourceType.TOPIC, t.name())));
            case FETCH -> ((FetchRequestData) body).topics()
                .forEach(t -> out.add(new Need(Operation.READ, ResourceType.TOPIC, t.topic())));
            case LIST_OFFSETS -> ((ListOffsetsRequestData) body).topics()
                .forEach(t -> out.add(new Need(Operation.DESCRIBE, ResourceType.TOPIC, t.name())));
            case FIND_COORDINATOR -> {
                FindCoordinatorRequestData r = (FindCoordinatorRequestData) body;
                ResourceType type = r.keyType() == 1 ? ResourceType.TRANSACTIONAL_ID : ResourceType.GROUP;
                if (r.coordinatorKeys().isEmpty()) {
                    out.add(new Need(Operation.DESCRIBE, type, r.key()));
                } else {
                    r.coordinatorKeys().forEach(k -> out.add(new Need(Operation.DESCRIBE, type, k)));
                }
            }
            case JOIN_GROUP -> out.add(group(Operation.READ, ((JoinGroupRequestData) body).groupId()));
            case SYNC_GROUP -> out.add(group(Operation.READ, ((SyncGroupRequestData) body).groupId()));
            case HEARTBEAT -> out.add(group(Operation.READ, ((HeartbeatRequestData) body).groupId()));
            case LEAVE_GROUP -> out.add(group(Operation.READ, ((LeaveGroupRequestData) body).groupId()));
            case OFFSET_COMMIT -> {
                OffsetCommitRequestData r = (OffsetCommitRequestData) body;
                out.add(group(Operation.READ, r.groupId()));
                r.topics().forEach(t -> out.add(new Need(Operation.READ, ResourceType.TOPIC, t.name())));
            }
            case OFFSET_FETCH -> {
                OffsetFetchRequestData r = (OffsetFetchRequestData) body;
                out.add(group(Operation.DESCRIBE, r.groupId()));
                if (r.topics() != null) {
                    r.topics().forEach(t -> out.add(new Need(Operation.DESCRIBE, ResourceType.TOPIC, t.name())));
                }
            }
            case LIST_GROUPS -> out.add(new Need(Operation.DESCRIBE, ResourceType.CLUSTER, Authorizer.CLUSTER_NAME));
            case DESCRIBE_GROUPS -> ((DescribeGroupsRequestData) body).groups()
                .forEach(g -> out.add(group(Operation.DESCRIBE, g)));
            case DELETE_GROUPS -> ((DeleteGroupsRequestData) body).groupsNames()
                .forEach(g -> out.add(group(Operation.DELETE, g)));
            case OFFSET_DELETE -> {
                OffsetDeleteRequestData r = (OffsetDeleteRequestData) body;
                out.add(group(Operation.DELETE, r.groupId()));
                r.topics().forEach(t -> out.add(new Need(Operation.READ, ResourceType.TOPIC, t.name())));
            }
            case DESCRIBE_PRODUCERS -> ((DescribeProducersRequestData) body).topics()
                .forEach(t -> out.add(new Need(Operation.READ, ResourceType.TOPIC, t.name())));
            case DESCRIBE_CLIENT_QUOTAS ->
                out.add(new Need(Operation.DESCRIBE_CONFIGS, ResourceType.CLUSTER, Authorizer.CLUSTER_NAME));
            case LIST_PARTITION_REASSIGNMENTS ->
                out.add(new Need(Operation.DESCRIBE, ResourceType.CLUSTER, Authorizer.CLUSTER_NAME));
            default -> {
                // checked by the service (metadata, producer ids, topic admin, configs, records, leaders, log dirs,
                // leader epochs) or open (versions, cluster)
            }
        }
        return out;
    }

    private static Need group(Operation operation, String id) {
        return new Need(operation, ResourceType.GROUP, id);
    }
}
