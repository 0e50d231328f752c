package io.raftline.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.raftline.metadata.controller.ControllerConfig;
import io.raftline.protocol.controller.CreatableTopic;
import io.raftline.protocol.controller.CreateTopicsRequest;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class QuorumRpcTest {

    @Test
    void aRequestBuiltWhileTheNextIndexMovedIsSkippedNotFatal() throws Exception {
        AtomicLong nextIndex = new AtomicLong(362);
        AtomicLong raced = new AtomicLong();
        // What Ratis 3.2.2 does when a SUCCESS reply raises the index between its two reads of it.
        String built = QuorumRpc.buildOrSkip(() -> {
            nextIndex.set(379);
            throw new IllegalStateException("follower: Previous = (t:2, i:361) but firstIndex = 379");
        }, nextIndex::get, "follower", raced);
        assertThat(built).isNull();
        assertThat(raced).hasValue(1);
        // The next pass builds from the new index.
        assertThat(QuorumRpc.buildOrSkip(() -> "request from " + nextIndex.get(), nextIndex::get, "follower", raced))
            .isEqualTo("request from 379");
        assertThat(raced).hasValue(1);
    }

    @Test
    void anAssertionWithAnUnmovedNextIndexStillFails() {
        AtomicLong nextIndex = new AtomicLong(362);
        assertThatThrownBy(() -> QuorumRpc.buildOrSkip(() -> {
            throw new IllegalStateException("follower: firstIndex = 370 != nextIndex = 362");
        }, nextIndex::get, "follower", new AtomicLong())).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("370");
    }

    @Test
    void otherFailuresPassThroughUnchanged() {
        AtomicLong nextIndex = new AtomicLong(1);
        assertThatThrownBy(() -> QuorumRpc.buildOrSkip(() -> {
            nextIndex.incrementAndGet();
            throw new RaftLogIOException("disk");
        }, nextIndex::get, "follower", new AtomicLong())).isInstanceOf(RaftLogIOException.class);
    }

    @Test
    void theQuorumPropertiesSelectThisTransport() throws Exception {
        RaftProperties p = QuorumServer.ratisProperties(QuorumConfig.builder().nodeId(1).clusterId("c")
            .quorumListener("127.0.0.1", 0).controllerListener("127.0.0.1", 0)
            .voters(Map.of(1, new InetSocketAddress("127.0.0.1", 1)))
            .metadataDir(Path.of("/nonexistent")).build(), Path.of("/nonexistent/ratis"));
        RpcType type = RaftConfigKeys.Rpc.type(p, s -> { });
        assertThat(type).isInstanceOf(QuorumRpc.Type.class);
        assertThat(type.newFactory(new Parameters())).isInstanceOf(QuorumRpc.Factory.class);
    }

    @Test
    @Timeout(90)
    void aFailedAppenderIsReplacedAndItsFollowerKeepsReplicating() throws Exception {
        AtomicBoolean armed = new AtomicBoolean(false);
        // Every node's appenders build requests through this: once armed, the next build fails as a Ratis defect would.
        QuorumRpc.Hooks hooks = new QuorumRpc.Hooks(ratis -> {
            if (armed.compareAndSet(true, false)) {
                throw new IllegalStateException("injected: an append request could not be built");
            }
            return ratis.build();
        });
        try (TestQuorum q = new TestQuorum(3, "appender", 100_000, ControllerConfig.defaults(), hooks)) {
            QuorumNode leader = q.awaitActive();
            write(leader, "before", 3);
            long appenders = hooks.appenders();
            armed.set(true);
            write(leader, "after", 20);
            long index = leader.image().index();
            await().atMost(Duration.ofSeconds(30)).until(() -> q.nodes.values().stream()
                .allMatch(n -> n.image().index() >= index));
            assertThat(armed).as("the failure was injected").isFalse();
            assertThat(hooks.appenders()).as("a new appender replaced the failed one").isGreaterThan(appenders);
            assertThat(leader.isActiveController()).as("no election was needed").isTrue();
        }
    }

    private static void write(QuorumNode leader, String prefix, int topics) throws Exception {
        ActiveController ac = leader.activeController();
        for (int i = 0; i < topics; i++) {
            String name = prefix + i;
            ac.submit(image -> ac.controller().createTopics(image, CreateTopicsRequest.newBuilder()
                .addTopics(CreatableTopic.newBuilder().setName(name).setNumPartitions(1).setReplicationFactor(1))
                .build()), false).get();
        }
    }
}
