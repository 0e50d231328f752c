package io.raftline.broker.rpc;

import static io.raftline.broker.rpc.HostileRequestsTest.unary;
import static io.raftline.broker.rpc.HostileValues.ints;
import static io.raftline.broker.rpc.HostileValues.longs64;
import static io.raftline.broker.rpc.HostileValues.names;
import static io.raftline.broker.rpc.HostileValues.oneError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.lists;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.raftline.broker.replica.ReplicaManagerFixture;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.acl.AclFilter;
import io.raftline.protocol.broker.BrokerServiceGrpc;
import io.raftline.protocol.broker.DescribeAclsRequest;
import io.raftline.protocol.broker.DescribeConfigsRequest;
import io.raftline.protocol.broker.InitProducerIdRequest;
import io.raftline.protocol.broker.MetadataRequest;
import io.raftline.protocol.broker.MetadataResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * The reads the broker answers from its own metadata image (Metadata, DescribeConfigs, DescribeAcls) and
 * InitProducerId, with hostile fields (empty, oversized, unicode and duplicated topic names, resource types and ACL
 * filter enums with numbers no enum has, metadata indexes at the long edges up to the served one), over in-process
 * gRPC into the real {@link BrokerRpcService}: each is answered, never failed with UNKNOWN or INTERNAL, every error is
 * one code with a message, and the served image is the same afterwards (no topic auto-created). The admin writes it
 * forwards are decided by the controller (HostileAdminRequestsTest in metadata-quorum).
 */
@Timeout(60)
class HostileBrokerRequestsTest {

    private static final long SEED = 20261213L;

    @TempDir
    Path tmp;

    private ReplicaManagerFixture fixture;
    private BrokerServiceFixture broker;
    private Server server;
    private ManagedChannel channel;
    private BrokerServiceGrpc.BrokerServiceBlockingStub stub;
    private MetadataImage image;

    @BeforeEach
    void start() throws Exception {
        fixture = new ReplicaManagerFixture(tmp, 2, List.of(1), List.of(1));
        broker = new BrokerServiceFixture(fixture);
        image = broker.served.current();
        String name = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(name).directExecutor().addService(broker.service).build().start();
        channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        stub = BrokerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow();
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        broker.close();
        fixture.close();
    }

    /** A metadata index no later than the served one (a later one is waited for, up to 5 s, by design). */
    private Gen<Long> indexes() {
        long served = image.index();
        return longs64().map(i -> i > served ? served : i);
    }

    private static Gen<Integer> enumNumbers() {
        return Generate.pick(List.of(0, 1, 2, 3, 4, 5, 7, 11, 12, 99, -1)).mix(ints(), 10);
    }

    @Test
    void metadata() {
        Gen<MetadataRequest> requests = lists().of(names("t")).ofSizeBetween(0, 6).zip(booleans().all(), booleans().all(),
            indexes(), (topics, all, create, index) -> MetadataRequest.newBuilder().addAllTopics(topics).setAllTopics(all)
                .setAllowAutoTopicCreation(create).setMinMetadataIndex(index).build());
        qt().withFixedSeed(SEED).withExamples(300).forAll(requests).checkAssert(request -> {
            MetadataResponse response = unary(() -> stub.metadata(request));
            response.getTopicsList().forEach(t -> {
                oneError(t.getError());
                t.getPartitionsList().forEach(p -> oneError(p.getError()));
            });
            assertThat(broker.served.current()).as("the served image").isSameAs(image);
        });
    }

    @Test
    void describeConfigsAclsAndProducerIds() {
        Gen<DescribeConfigsRequest> configs = enumNumbers().zip(names("t", "", "1", "0", "99999999999"), indexes(),
            (type, name, index) -> DescribeConfigsRequest.newBuilder().setResourceTypeValue(type).setResourceName(name)
                .setMinMetadataIndex(index).build());
        qt().withFixedSeed(SEED).withExamples(300).forAll(configs).checkAssert(request ->
            oneError(unary(() -> stub.describeConfigs(request)).getError()));
        Gen<AclFilter> filters = names("User:alice", "User:*", "").zip(names("t", "*", ""), enumNumbers(),
            enumNumbers().zip(enumNumbers(), enumNumbers(), (a, b, c) -> new int[] {a, b, c}),
            (principal, resource, type, rest) -> AclFilter.newBuilder().setPrincipal(principal).setHost(resource)
                .setResourceTypeValue(type).setResourceName(resource).setPatternTypeValue(rest[0]).setOperationValue(rest[1])
                .setPermissionValue(rest[2]).build());
        qt().withFixedSeed(SEED).withExamples(300).forAll(filters, indexes()).checkAssert((filter, index) -> {
            var response = unary(() -> stub.describeAcls(DescribeAclsRequest.newBuilder().setFilter(filter)
                .setMinMetadataIndex(index).build()));
            oneError(response.getError());
            assertThat(response.getBindingsList()).as("no ACL exists").isEmpty();
        });
        qt().withFixedSeed(SEED).withExamples(50).forAll(ints(), longs64(), ints()).checkAssert((timeout, id, epoch) -> {
            var response = unary(() -> stub.initProducerId(InitProducerIdRequest.newBuilder().setTransactionTimeoutMs(timeout)
                .setProducerId(id).setProducerEpoch(epoch).build()));
            assertThat(response.getError().getCode()).as("no producer ids without a controller")
                .isEqualTo(ErrorCode.COORDINATOR_NOT_AVAILABLE);
            oneError(response.getError());
        });
    }
}
