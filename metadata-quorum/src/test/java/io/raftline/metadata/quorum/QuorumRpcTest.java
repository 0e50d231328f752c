package io.raftline.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.junit.jupiter.api.Test;

class QuorumRpcTest {

    @Test
    void aRequestBuiltWhileTheNextIndexMovedIsSkippedNotFatal() throws Exception {
        AtomicLong nextIndex = new AtomicLong(362);
        long raced = QuorumRpc.RACED_REQUESTS.get();
        // What Ratis 3.2.2 does when a SUCCESS reply raises the index between its two reads of it.
        String built = QuorumRpc.buildOrSkip(() -> {
            nextIndex.set(379);
            throw new IllegalStateException("follower: Previous = (t:2, i:361) but firstIndex = 379");
        }, nextIndex::get, "follower");
        assertThat(built).isNull();
        assertThat(QuorumRpc.RACED_REQUESTS.get()).isEqualTo(raced + 1);
        // The next pass builds from the new index.
        assertThat(QuorumRpc.buildOrSkip(() -> "request from " + nextIndex.get(), nextIndex::get, "follower"))
            .isEqualTo("request from 379");
    }

    @Test
    void anAssertionWithAnUnmovedNextIndexStillFails() {
        AtomicLong nextIndex = new AtomicLong(362);
        assertThatThrownBy(() -> QuorumRpc.buildOrSkip(() -> {
            throw new IllegalStateException("follower: firstIndex = 370 != nextIndex = 362");
        }, nextIndex::get, "follower")).isInstanceOf(IllegalStateException.class).hasMessageContaining("370");
    }

    @Test
    void otherFailuresPassThroughUnchanged() {
        AtomicLong nextIndex = new AtomicLong(1);
        assertThatThrownBy(() -> QuorumRpc.buildOrSkip(() -> {
            nextIndex.incrementAndGet();
            throw new RaftLogIOException("disk");
        }, nextIndex::get, "follower")).isInstanceOf(RaftLogIOException.class);
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
}
