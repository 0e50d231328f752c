package io.raftline.broker.rpc;

import io.raftline.protocol.controller.AllocateProducerIdsRequest;
import io.raftline.protocol.controller.AllocateProducerIdsResponse;
import io.raftline.protocol.controller.AlterConfigsRequest;
import io.raftline.protocol.controller.AlterConfigsResponse;
import io.raftline.protocol.controller.AlterPartitionReassignmentsRequest;
import io.raftline.protocol.controller.AlterPartitionReassignmentsResponse;
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
import java.util.concurrent.CompletableFuture;

/**
 * What the broker forwards to the active controller on a client's behalf (clients only know brokers). Each
 * future completes with the controller's answer, after the records it wrote have committed.
 */
public interface ControllerForwarder {

    CompletableFuture<CreateTopicsResponse> createTopics(CreateTopicsRequest request);

    CompletableFuture<DeleteTopicsResponse> deleteTopics(DeleteTopicsRequest request);

    CompletableFuture<CreatePartitionsResponse> createPartitions(CreatePartitionsRequest request);

    CompletableFuture<AlterConfigsResponse> alterConfigs(AlterConfigsRequest request);

    CompletableFuture<ElectLeadersResponse> electLeaders(ElectLeadersRequest request);

    CompletableFuture<AlterPartitionReassignmentsResponse> alterPartitionReassignments(
        AlterPartitionReassignmentsRequest request);

    CompletableFuture<DescribeQuorumResponse> describeQuorum(DescribeQuorumRequest request);

    CompletableFuture<AllocateProducerIdsResponse> allocateProducerIds(AllocateProducerIdsRequest request);
}
