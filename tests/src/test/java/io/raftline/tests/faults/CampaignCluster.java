package io.raftline.tests.faults;

import io.raftline.tests.cluster.Placement;
import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The cluster a fault campaign runs against, with what its faults need in place from the start.
 *
 * <ul>
 *   <li>{@link #onHosts}: 5 combined nodes, each on its own network-namespace host; node {@link #SKEWED_NODE} runs under
 *       libfaketime (wall clock only: {@code DONT_FAKE_MONOTONIC=1}; its offset read from a file the clock-skew fault
 *       rewrites), node {@link #SMALL_DISK_NODE}'s log dir is a small tmpfs (the full-disk fault fills it).</li>
 *   <li>{@link #withPowerLoss}: 3 combined nodes whose log dirs and metadata dir sit on {@link UnsyncedFs} mounts, which
 *       keep every write that was not fsynced apart and drop it on a power loss.</li>
 * </ul>
 */
final class CampaignCluster implements AutoCloseable {

    static final int SKEWED_NODE = 4;
    static final int SMALL_DISK_NODE = 5;
    private static final String FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
    private static final long SMALL_DISK_MB = 192;

    private final String kind;
    private final Hosts hosts;
    private final Path work;
    private final List<Path> mounts = new ArrayList<>();
    private final Map<Integer, UnsyncedFs> disks = new LinkedHashMap<>();
    private final List<Path> backings = new ArrayList<>();
    private final Map<String, String> config;
    private TestCluster cluster;
    private long droppedBytes;

    private CampaignCluster(String kind, Hosts hosts, Path work, Map<String, String> config) {
        this.kind = kind;
        this.hosts = hosts;
        this.work = work;
        this.config = config;
    }

    /** The settings every campaign cluster runs with on top of the product's defaults. */
    private static TestCluster.Builder base(TestCluster.Builder b, Map<String, String> config) {
        config.forEach(b::config);
        return b;
    }

    static CampaignCluster onHosts(Path work, Map<String, String> config) throws Exception {
        if (!Files.isRegularFile(Path.of(FAKETIME_LIB))) {
            io.raftline.tests.cluster.DebianPackages.ensureFiles(List.of(FAKETIME_LIB), "faketime").ifPresent(why -> {
                throw new IllegalStateException(why);
            });
        }
        Hosts hosts = Hosts.up(5);
        CampaignCluster c = new CampaignCluster("5 nodes on 5 network-namespace hosts", hosts, work, config);
        try {
            Files.createDirectories(work);
            Path clock = c.clockFile(SKEWED_NODE);
            Files.writeString(clock, "+0\n", StandardCharsets.UTF_8);
            Placement placement = hosts.placement(id -> id == SKEWED_NODE ? Map.of("LD_PRELOAD", FAKETIME_LIB,
                "FAKETIME_TIMESTAMP_FILE", clock.toString(), "FAKETIME_CACHE_DURATION", "1", "DONT_FAKE_MONOTONIC", "1",
                // without it libfaketime's pthread_cond_timedwait returns early and the JVM's timed waits spin
                "FAKETIME_FORCE_MONOTONIC_FIX", "0") : Map.of(),
                node -> {
                    if (node.id() == SMALL_DISK_NODE) {
                        c.mountTmpfs(node.dir().resolve("data"));
                    }
                });
            c.cluster = base(TestCluster.builder().combined(5).placement(placement), config).start();
            return c;
        } catch (Exception | Error e) {
            c.close();
            throw e;
        }
    }

    static CampaignCluster withPowerLoss(Path work, Map<String, String> config) {
        CampaignCluster c = new CampaignCluster("3 nodes, data and metadata on unsyncedfs", null, work, config);
        try {
            Files.createDirectories(work);
            Placement placement = new Placement() {
                @Override
                public void prepare(TestNode node) {
                    Path disk = node.dir().resolve("disk");
                    try {
                        Files.createDirectories(disk);
                        Path backing = Files.createTempDirectory(work, "backing-" + node.id() + "-");
                        c.backings.add(backing);
                        c.disks.put(node.id(), UnsyncedFs.mount(backing, disk));
                        Files.createDirectories(disk.resolve("data"));
                        Files.createDirectories(disk.resolve("metadata"));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            };
            TestCluster.Builder b = TestCluster.builder().combined(3).placement(placement)
                .config("log.dirs", TestNode.NODE_DIR + "/disk/data").config("metadata.dir", TestNode.NODE_DIR + "/disk/metadata");
            c.cluster = base(b, config).start();
            return c;
        } catch (RuntimeException | Error e) {
            c.close();
            throw e;
        } catch (IOException e) {
            c.close();
            throw new UncheckedIOException(e);
        }
    }

    String kind() {
        return kind;
    }

    Map<String, String> config() {
        return config;
    }

    TestCluster cluster() {
        return cluster;
    }

    Hosts hosts() {
        return hosts;
    }

    int skewedNode() {
        return SKEWED_NODE;
    }

    int smallDiskNode() {
        return SMALL_DISK_NODE;
    }

    Path clockFile(int id) {
        return work.resolve("faketime-" + id);
    }

    /** Bytes written and never fsynced that the power losses of this cluster dropped so far. */
    long droppedBytes() {
        return droppedBytes;
    }

    private void mountTmpfs(Path dir) {
        try {
            Files.createDirectories(dir);
            exec("mount", "-t", "tmpfs", "-o", "size=" + SMALL_DISK_MB + "m", "tmpfs", dir.toString());
            mounts.add(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Fills the small disk to the last byte (the broker writes meanwhile, so: most of it at once, then the rest in 4 KiB
     * writes until none fits); returns the fill's directory entries (deleting them frees the space).
     */
    List<Path> fill(int id) throws IOException {
        Path dir = cluster.node(id).dir().resolve("data");
        Path bulk = dir.resolve("filler.bin");
        Path rest = dir.resolve("filler-rest.bin");
        for (int attempt = 0; attempt < 10; attempt++) {
            long free = Files.getFileStore(dir).getUsableSpace();
            try {
                exec("fallocate", "-l", Long.toString(Math.max(4096, free - 256 * 1024)), bulk.toString());
                break;
            } catch (IllegalStateException raced) {
                Files.deleteIfExists(bulk);
            }
        }
        try {
            exec("dd", "if=/dev/zero", "of=" + rest, "bs=4k");
        } catch (IllegalStateException full) {
            // dd ends with "No space left on device": that is the point
        }
        return List.of(bulk, rest);
    }

    /** kill -9 of the nodes, then each one's unsynced writes dropped and its disk mounted again (not started). */
    void powerLoss(List<Integer> ids) {
        for (int id : ids) {
            cluster.node(id).kill();
        }
        for (int id : ids) {
            UnsyncedFs disk = disks.get(id);
            if (disk == null) {
                throw new IllegalStateException("node " + id + " has no unsyncedfs disk in " + kind);
            }
            try {
                droppedBytes += disk.crash();
                disk.remount();
            } catch (IOException e) {
                throw new UncheckedIOException("power loss of node " + id, e);
            }
        }
    }

    /** A node formatted again from nothing (its log dirs and metadata emptied), with the cluster's id. */
    void wipeAndFormat(int id) {
        cluster.node(id).wipeAndFormat(cluster.clusterId());
    }

    private static void exec(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            if (cluster != null) {
                cluster.close();
            }
        } finally {
            for (UnsyncedFs disk : disks.values()) {
                disk.close();
            }
            for (Path backing : backings) {
                try {
                    exec("rm", "-rf", "--", backing.toString());
                } catch (RuntimeException e) {
                    System.out.println("could not remove " + backing + ": " + e.getMessage());
                }
            }
            for (Path m : mounts) {
                try {
                    exec("umount", "-l", m.toString());
                } catch (RuntimeException e) {
                    System.out.println("could not unmount " + m + ": " + e.getMessage());
                }
            }
            if (hosts != null) {
                hosts.close();
            }
        }
    }
}
