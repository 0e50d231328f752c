package io.raftline.metadata.quorum;

import static org.awaitility.Awaitility.await;

import io.raftline.common.SystemTime;
import io.raftline.common.TestPorts;
import io.raftline.metadata.client.LocalControllers;
import io.raftline.metadata.controller.ControllerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.ratis.util.ExitUtils;

/** A real quorum of N nodes on loopback in this JVM, with ports from {@link TestPorts} and temporary metadata dirs. */
final class TestQuorum implements AutoCloseable {

    static {
        // Where Ratis would end the process (its gRPC server cannot listen), it throws instead: the test that started
        // the node fails and says why, where System.exit would end the whole test JVM without a word.
        ExitUtils.disableSystemExit();
    }

    final String clusterId;
    final Path root;
    final Map<Integer, InetSocketAddress> voters = new TreeMap<>();
    final Map<Integer, QuorumNode> nodes = new TreeMap<>();
    final ControllerConfig controllerConfig;
    final long snapshotRecords;
    int cachedEntries = 20_000;
    final QuorumRpc.Hooks rpcHooks;
    /** Each node's metadata directory id, as its meta.properties would hold it: a wipe re-formats it with a new one. */
    final Map<Integer, String> directoryIds = new TreeMap<>();

    TestQuorum(int n, String clusterId, long snapshotRecords, ControllerConfig controllerConfig) throws IOException {
        this(n, clusterId, snapshotRecords, controllerConfig, 20_000);
    }

    TestQuorum(int n, String clusterId, long snapshotRecords, ControllerConfig controllerConfig, int cachedEntries)
        throws IOException {
        this(n, clusterId, snapshotRecords, controllerConfig, cachedEntries, new QuorumRpc.Hooks());
    }

    /** Every node's quorum RPC built with {@code rpcHooks} (shared: its counters add up over the nodes). */
    TestQuorum(int n, String clusterId, long snapshotRecords, ControllerConfig controllerConfig, QuorumRpc.Hooks rpcHooks)
        throws IOException {
        this(n, clusterId, snapshotRecords, controllerConfig, 20_000, rpcHooks);
    }

    private TestQuorum(int n, String clusterId, long snapshotRecords, ControllerConfig controllerConfig, int cachedEntries,
                       QuorumRpc.Hooks rpcHooks) throws IOException {
        this.rpcHooks = rpcHooks;
        this.cachedEntries = cachedEntries;
        this.clusterId = clusterId;
        this.root = Files.createTempDirectory("raftline-quorum-");
        this.snapshotRecords = snapshotRecords;
        this.controllerConfig = controllerConfig;
        for (int i = 1; i <= n; i++) {
            voters.put(i, new InetSocketAddress("127.0.0.1", TestPorts.free()));
        }
        for (int i = 1; i <= n; i++) {
            start(i);
        }
    }

    QuorumConfig config(int id, InetSocketAddress quorumAddress, Map<Integer, InetSocketAddress> seedVoters) {
        return QuorumConfig.builder().nodeId(id).clusterId(clusterId)
            .quorumListener("127.0.0.1", quorumAddress.getPort()).controllerListener("127.0.0.1", 0)
            .voters(seedVoters).metadataDir(root.resolve("node-" + id)).snapshotRecords(snapshotRecords).cachedEntries(cachedEntries)
            .directoryId(directoryIds.computeIfAbsent(id, k -> "dir-" + k + "-1")).build();
    }

    QuorumNode start(int id) throws IOException {
        QuorumNode node = QuorumNode.start(config(id, voters.get(id), voters), controllerConfig, SystemTime.INSTANCE, null,
            rpcHooks, new LocalControllers());
        nodes.put(id, node);
        return node;
    }

    QuorumNode startNew(int id, InetSocketAddress address) throws IOException {
        QuorumNode node = QuorumNode.start(config(id, address, voters), controllerConfig, SystemTime.INSTANCE, null, rpcHooks,
            new LocalControllers());
        nodes.put(id, node);
        return node;
    }

    QuorumNode awaitActive() {
        QuorumNode[] found = new QuorumNode[1];
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).until(() -> {
            for (QuorumNode n : nodes.values()) {
                if (n.isActiveController()) {
                    found[0] = n;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    List<InetSocketAddress> controllerEndpoints() {
        List<InetSocketAddress> out = new ArrayList<>();
        nodes.values().forEach(n -> out.add(new InetSocketAddress("127.0.0.1", n.controllerPort())));
        return out;
    }

    void stop(int id) throws IOException {
        QuorumNode n = nodes.remove(id);
        if (n != null) {
            n.close();
        }
    }

    /** Deletes the node's metadata dir, as a lost disk would, and re-formats it with a new directory id. */
    void wipe(int id) throws IOException {
        directoryIds.compute(id, (k, v) -> "dir-" + k + "-" + (v == null ? 1 : Integer.parseInt(v.substring(v.lastIndexOf('-') + 1)) + 1));
        Path dir = root.resolve("node-" + id);
        if (Files.exists(dir)) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        for (QuorumNode n : new ArrayList<>(nodes.values())) {
            n.close();
        }
        nodes.clear();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
