package io.raftline.metadata.quorum;

import io.raftline.metadata.controller.ControllerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.LongConsumer;

/** Opens {@link TestQuorum} to tests in other packages. */
public final class TestQuorumAccess implements AutoCloseable {

    private final TestQuorum quorum;

    public TestQuorumAccess(int n, String clusterId, ControllerConfig config) throws IOException {
        this.quorum = new TestQuorum(n, clusterId, 10_000, config);
    }

    public QuorumNode awaitActive() {
        return quorum.awaitActive();
    }

    public java.util.Collection<QuorumNode> nodes() {
        return quorum.nodes.values();
    }

    public List<InetSocketAddress> controllerEndpoints() {
        return quorum.controllerEndpoints();
    }

    /** Calls {@code onIndex} on the node's apply thread for every entry it applies. */
    public static void onCommit(QuorumNode node, LongConsumer onIndex) {
        node.stateMachine().addCommitListener((entry, delta, image) -> onIndex.accept(entry.index()));
    }

    @Override
    public void close() throws IOException {
        quorum.close();
    }
}
