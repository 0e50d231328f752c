package io.raftline.tests.cluster;

import java.util.List;
import java.util.Map;

/**
 * Where the nodes of a {@link TestCluster} run: the address each node's listeners bind, the command that places its
 * process (e.g. {@code ip netns exec rl-n2} for a network-namespace host), its environment (e.g. libfaketime's), and
 * what its directory needs before it is formatted (e.g. a mount under it). By default every node runs on 127.0.0.1.
 */
public interface Placement {

    /** Every node on 127.0.0.1, started as a plain child process. */
    Placement LOOPBACK = new Placement() {
    };

    default String address(int nodeId) {
        return "127.0.0.1";
    }

    /** The command words put before the node's {@code java ...} command; empty for none. */
    default List<String> launcher(int nodeId) {
        return List.of();
    }

    /** Variables added to the node process's environment. */
    default Map<String, String> environment(int nodeId) {
        return Map.of();
    }

    /** Called with each node once its config is written and before it is formatted (its directory exists). */
    default void prepare(TestNode node) {
    }
}
