package io.raftline.tests.faults;

import io.raftline.tests.cluster.TestCluster;
import io.raftline.tests.cluster.TestNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** The campaign's faults by name: every fault family of issue 19, item 3. */
final class Faults {

    private Faults() {
    }

    private record Simple(String name, String family, Duration healAllowance, Duration minHold, Injector injector) implements Fault {
        @Override
        public Injected inject(FaultTarget t) throws Exception {
            return injector.inject(t);
        }
    }

    @FunctionalInterface
    private interface Injector {
        Fault.Injected inject(FaultTarget t) throws Exception;
    }

    private static final Map<String, Fault> ALL = new LinkedHashMap<>();

    /**
     * A node restart (JVM start, registration, catch-up) on this 2-core machine under load: 15-19 s measured for a
     * killed leader on the namespace hosts (12 s, the earlier allowance, let verify's workload end before the heal in
     * 2 of 10 kill runs).
     */
    private static final Duration RESTART = Duration.ofSeconds(20);
    private static final Duration AT_ONCE = Duration.ofSeconds(3);
    private static final java.util.Set<String> RESTARTING = java.util.Set.of("kill", "restart-minority", "disk", "power");

    /**
     * A cut-off leader is held long enough to see its clients move to the new leader while the cut lasts (the broker
     * session, the leader's own refusal and a metadata refresh take a few seconds).
     */
    private static final Map<String, Duration> MIN_HOLDS = Map.of("partition-leader", Duration.ofSeconds(6));

    private static void add(String name, String family, Injector injector) {
        boolean restarts = RESTARTING.contains(family) || name.equals("replace-voter");
        ALL.put(name, new Simple(name, family, restarts ? RESTART : AT_ONCE, MIN_HOLDS.getOrDefault(name, Duration.ZERO), injector));
    }

    static {
        add("kill-leader", "kill", t -> kill(t, t.partitionLeader()));
        add("kill-follower", "kill", t -> kill(t, t.follower()));
        add("kill-controller", "kill", t -> kill(t, t.controller()));
        add("kill-coordinator", "kill", t -> kill(t, t.coordinator()));
        add("kill-minority", "kill", t -> {
            List<Integer> victims = t.shuffledNodes().subList(0, (t.cluster().nodes().size() - 1) / 2);
            victims.forEach(id -> t.cluster().node(id).kill());
            return new Fault.Injected(join(victims), () -> victims.forEach(t::restart));
        });
        // SIGSTOP longer than broker.session.timeout.ms: the zombie leader, fenced while it cannot know it.
        add("pause-leader", "pause", t -> {
            int id = t.partitionLeader();
            TestNode node = t.cluster().node(id);
            node.pause();
            return new Fault.Injected(Integer.toString(id), node::resume);
        });
        // The leader cut off from every other node while the clients (on the "host" side) still reach it.
        add("partition-leader", "partition", t -> {
            int id = t.partitionLeader();
            t.hosts().partition(id);
            return new Fault.Injected(Integer.toString(id), t.hosts()::heal);
        });
        add("partition-client-leader", "partition", t -> {
            int id = t.partitionLeader();
            t.hosts().partition(id, "host");
            return new Fault.Injected(Integer.toString(id), t.hosts()::heal);
        });
        add("partition-majority", "partition", t -> {
            List<Integer> order = t.shuffledNodes();
            int minoritySize = (order.size() - 1) / 2;
            List<Integer> minority = order.subList(0, minoritySize);
            List<Integer> majority = order.subList(minoritySize, order.size());
            for (int m : minority) {
                t.hosts().partition(m, majority.stream().map(String::valueOf).toArray(String[]::new));
            }
            return new Fault.Injected(join(minority) + "|" + join(majority), t.hosts()::heal);
        });
        // Each node sees only its two neighbours in a seeded ring.
        add("partition-ring", "partition", t -> {
            List<Integer> ring = t.shuffledNodes();
            int n = ring.size();
            for (int i = 0; i < n; i++) {
                List<String> far = new ArrayList<>();
                for (int j = 0; j < n; j++) {
                    int d = Math.abs(i - j);
                    if (d > 1 && d < n - 1) {
                        far.add(String.valueOf(ring.get(j)));
                    }
                }
                if (!far.isEmpty()) {
                    t.hosts().partition(ring.get(i), far.toArray(String[]::new));
                }
            }
            return new Fault.Injected("ring:" + join(ring), t.hosts()::heal);
        });
        // The leader cut off and healed every second while the fault lasts.
        add("partition-flapping", "partition", t -> {
            int id = t.partitionLeader();
            AtomicBoolean stop = new AtomicBoolean();
            Thread flapper = new Thread(() -> {
                boolean cut = false;
                while (!stop.get()) {
                    if (cut) {
                        t.hosts().heal();
                    } else {
                        t.hosts().partition(id);
                    }
                    cut = !cut;
                    try {
                        TimeUnit.MILLISECONDS.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "flapping-" + id);
            flapper.start();
            return new Fault.Injected(Integer.toString(id), () -> {
                stop.set(true);
                flapper.join(TimeUnit.SECONDS.toMillis(30));
                t.hosts().heal();
            });
        });
        // A node cut off from everything (nodes and clients), killed and started again while it cannot reach the quorum:
        // it must not serve a stale image.
        add("restart-in-minority", "restart-minority", t -> {
            int id = t.anyNode();
            t.hosts().partition(id);
            t.hosts().partition(id, "host");
            TestNode node = t.cluster().node(id);
            node.kill();
            node.start();
            return new Fault.Injected(Integer.toString(id), () -> {
                t.hosts().heal();
                t.awaitReady(id);
            });
        });
        add("lossy-link", "link", t -> {
            int id = t.anyNode();
            t.hosts().degrade(id, 5, 4000);
            return new Fault.Injected(id + ":loss5%,4mbit", () -> t.hosts().restore(id));
        });
        add("lossy-leader-link", "link", t -> {
            int id = t.partitionLeader();
            t.hosts().degrade(id, 10, 2000);
            return new Fault.Injected(id + ":loss10%,2mbit", () -> t.hosts().restore(id));
        });
        // The broker whose log dir is a small tmpfs: filled, later emptied and the broker restarted.
        add("full-disk", "disk", t -> {
            int id = t.campaign.smallDiskNode();
            List<Path> fill = t.campaign.fill(id);
            return new Fault.Injected(Integer.toString(id), () -> {
                for (Path f : fill) {
                    Files.deleteIfExists(f);
                }
                TestNode node = t.cluster().node(id);
                node.kill();
                t.restart(id);
            });
        });
        // The wall clock of the node run under libfaketime jumps forward, then back; the monotonic clock is untouched.
        add("clock-skew", "clock", t -> {
            int id = t.campaign.skewedNode();
            Path clock = t.campaign.clockFile(id);
            AtomicBoolean stop = new AtomicBoolean();
            Thread jumper = new Thread(() -> {
                String[] offsets = {"+300s", "-300s", "+3600s", "-86400s"};
                int i = 0;
                while (!stop.get()) {
                    writeClock(clock, offsets[i++ % offsets.length]);
                    try {
                        TimeUnit.MILLISECONDS.sleep(2000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "clock-skew-" + id);
            jumper.start();
            return new Fault.Injected(Integer.toString(id), () -> {
                stop.set(true);
                jumper.join(TimeUnit.SECONDS.toMillis(30));
                writeClock(clock, "+0");
            });
        });
        // A voter (never the quorum leader) removed from the quorum under load, then added back.
        add("remove-add-voter", "membership", t -> {
            int leader = t.controller();
            int id = t.shuffledNodes().stream().filter(n -> n != leader).findFirst().orElseThrow();
            TestNode node = t.cluster().node(id);
            t.cluster().admin().removeMetadataVoter(id).get(60, TimeUnit.SECONDS);
            return new Fault.Injected(Integer.toString(id), () -> addBackAsVoter(t, node));
        });
        // A voter replaced by a freshly formatted node with the same id: removed, its disks wiped and formatted again,
        // started (it joins as an observer), then added as a voter.
        add("replace-voter", "membership", t -> {
            int leader = t.controller();
            int id = t.shuffledNodes().stream().filter(n -> n != leader).findFirst().orElseThrow();
            TestNode node = t.cluster().node(id);
            node.kill();
            t.cluster().admin().removeMetadataVoter(id).get(60, TimeUnit.SECONDS);
            t.campaign.wipeAndFormat(id);
            node.start();
            return new Fault.Injected(Integer.toString(id), () -> {
                t.awaitReady(id);
                addBackAsVoter(t, node);
            });
        });
        // Power loss: the JVM killed and every write it made that was not fsynced dropped, then the node restarted.
        add("power-loss-one", "power", t -> {
            int id = t.anyNode();
            t.campaign.powerLoss(List.of(id));
            return new Fault.Injected(Integer.toString(id), () -> t.restart(id));
        });
        add("power-loss-all", "power", t -> {
            List<Integer> all = t.cluster().nodes().stream().map(TestNode::id).toList();
            t.campaign.powerLoss(all);
            return new Fault.Injected("all", () -> {
                all.forEach(id -> t.cluster().node(id).start());
                all.forEach(t::awaitReady);
            });
        });
    }

    /** Adds a node back to the quorum's voters, retrying while a membership change is still settling. */
    private static void addBackAsVoter(FaultTarget t, TestNode node) {
        TestCluster.await(() -> {
            try {
                t.cluster().admin().addMetadataVoter(node.id(), node.address() + ":" + node.quorumPort()).get(30, TimeUnit.SECONDS);
                return true;
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(120), "node " + node.id() + " to be added back as a voter");
    }

    private static Fault.Injected kill(FaultTarget t, int id) {
        t.cluster().node(id).kill();
        return new Fault.Injected(Integer.toString(id), () -> t.restart(id));
    }

    private static void writeClock(Path file, String offset) {
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, offset + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String join(List<Integer> ids) {
        return String.join(",", ids.stream().map(String::valueOf).toList());
    }

    static Fault named(String name) {
        Fault f = ALL.get(name);
        if (f == null) {
            throw new IllegalArgumentException("no fault " + name + " (known: " + ALL.keySet() + ")");
        }
        return f;
    }

    static List<Fault> all() {
        return List.copyOf(ALL.values());
    }
}
