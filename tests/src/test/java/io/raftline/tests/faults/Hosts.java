package io.raftline.tests.faults;

import io.raftline.tests.cluster.DebianPackages;
import io.raftline.tests.cluster.NetnsLock;
import io.raftline.tests.cluster.Placement;
import io.raftline.tests.cluster.TestNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Network-namespace hosts for the fault campaign, made and cut by the project's own {@code tests/scripts/netns-hosts.sh}:
 * host I is the namespace rl-nI at 10.77.0.(10+I); the test's clients run in the root namespace ("host", 10.77.0.1).
 * Holds the machine-wide lock the deploy tests take, so two such tests never share the segment.
 */
final class Hosts implements AutoCloseable {

    private final Path script;
    private final int count;
    private final NetnsLock lock;

    private Hosts(Path script, int count, NetnsLock lock) {
        this.script = script;
        this.count = count;
        this.lock = lock;
    }

    /** Why hosts cannot be made here (after installing nftables and iproute2 when missing), or empty. */
    static Optional<String> missingPrerequisite() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("not root (network namespaces need root)");
        }
        return DebianPackages.ensure(List.of("/usr/sbin/nft", "/usr/sbin/tc", "/usr/sbin/ip"), "nftables", "iproute2");
    }

    static Path script() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("tests/scripts/netns-hosts.sh"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no tests/scripts/netns-hosts.sh above " + Path.of("").toAbsolutePath());
        }
        return dir.resolve("tests/scripts/netns-hosts.sh");
    }

    /** Takes the lock (waiting up to 15 minutes for another namespace test) and makes hosts 1..count. */
    static Hosts up(int count) throws IOException, InterruptedException {
        NetnsLock lock = NetnsLock.acquire();
        Hosts hosts = new Hosts(script(), count, lock);
        try {
            hosts.run("down");
            hosts.run("up", Integer.toString(count));
        } catch (RuntimeException e) {
            hosts.close();
            throw e;
        }
        return hosts;
    }

    int count() {
        return count;
    }

    static String ip(int host) {
        return "10.77.0." + (10 + host);
    }

    /**
     * Node I on host I: its listeners on the host's address, its process started inside the host's namespace (so its pid
     * is the JVM's: {@code ip netns exec} execs), with {@code environment} and {@code prepare} per node.
     */
    Placement placement(IntFunction<Map<String, String>> environment, Consumer<TestNode> prepare) {
        return new Placement() {
            @Override
            public String address(int nodeId) {
                return ip(nodeId);
            }

            @Override
            public List<String> launcher(int nodeId) {
                return List.of("ip", "netns", "exec", "rl-n" + nodeId);
            }

            @Override
            public Map<String, String> environment(int nodeId) {
                return environment.apply(nodeId);
            }

            @Override
            public void prepare(TestNode node) {
                prepare.accept(node);
            }
        };
    }

    /** Cuts host {@code i} off from {@code others} (host numbers, or "host" for the clients); none: from every host. */
    void partition(int i, String... others) {
        List<String> args = new ArrayList<>(List.of("partition", Integer.toString(i)));
        args.addAll(List.of(others));
        run(args.toArray(String[]::new));
    }

    /** Removes every cut. */
    void heal() {
        run("heal");
    }

    void degrade(int host, int lossPercent, int rateKbit) {
        run("degrade", Integer.toString(host), Integer.toString(lossPercent), Integer.toString(rateKbit));
    }

    void restore(int host) {
        run("restore", Integer.toString(host));
    }

    private String run(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(script.toString());
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException("netns-hosts.sh " + String.join(" ", args) + " failed: " + out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: netns-hosts.sh " + String.join(" ", args), e);
        }
    }

    @Override
    public void close() {
        try {
            run("down");
        } finally {
            lock.close();
        }
    }
}
