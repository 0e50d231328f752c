package io.raftline.cli.command.top;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.ClusterOverview;
import io.raftline.client.admin.ClusterOverview.PartitionView;
import io.raftline.common.SystemTime;
import io.raftline.common.Time;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code raftline top}: the cluster at a glance, redrawn every {@code --interval-ms} like top (the screen is cleared
 * between frames on a terminal; elsewhere frames follow one another). The data is {@link ClusterOverview}, what the
 * web console shows. {@code --once} or {@code --iterations N} stop after that many frames, for scripts.
 */
@Command(name = "top", mixinStandardHelpOptions = true,
    description = "A refreshing terminal view of brokers, busiest and under-replicated partitions, and group lag.",
    footer = {"", "Examples:", "  raftline top", "  raftline top --once", "  raftline top --iterations 3 --interval-ms 1000",
        "  raftline top --once --output json"})
public final class TopCommand implements Callable<Integer> {

    static final String CLEAR_SCREEN = "\u001b[H\u001b[2J";

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = "--once", description = "Print one frame and exit.")
    boolean once;
    @Option(names = "--iterations", paramLabel = "N", description = "Print N frames and exit (default: until Ctrl-C).")
    Integer iterations;
    @Option(names = "--interval-ms", paramLabel = "MS", defaultValue = "2000", description = "Between frames (default: ${DEFAULT-VALUE}).")
    long intervalMs;
    @Option(names = "--rows", paramLabel = "N", defaultValue = "10", description = "Rows per section (default: ${DEFAULT-VALUE}).")
    int rows;

    private final Time time = SystemTime.INSTANCE;

    @Override
    public Integer call() throws InterruptedException {
        if (once && iterations != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--once and --iterations are exclusive");
        }
        if (iterations != null && iterations < 1) {
            throw new CliException("--iterations must be at least 1, got " + iterations);
        }
        if (intervalMs < 100) {
            throw new CliException("--interval-ms must be at least 100, got " + intervalMs);
        }
        if (rows < 1) {
            throw new CliException("--rows must be at least 1, got " + rows);
        }
        long frames = once ? 1 : iterations == null ? Long.MAX_VALUE : iterations;
        boolean clear = !once && iterations == null && !options.json() && System.console() != null;
        PrintWriter out = spec.commandLine().getOut();
        try (Admin admin = options.admin()) {
            ClusterOverview before = null;
            long beforeMs = 0;
            for (long frame = 0; frame < frames; frame++) {
                if (frame > 0) {
                    time.sleep(intervalMs);
                }
                long nowMs = time.milliseconds();
                ClusterOverview now = fetch(admin);
                long elapsedMs = before == null ? 0 : nowMs - beforeMs;
                if (options.json()) {
                    Json.print(out, json(now, before, elapsedMs));
                } else {
                    if (clear) {
                        out.print(CLEAR_SCREEN);
                    } else if (frame > 0) {
                        out.println();
                    }
                    out.print(TopView.render(now, before, elapsedMs, rows));
                    out.flush();
                }
                before = now;
                beforeMs = nowMs;
            }
        }
        return 0;
    }

    private static ClusterOverview fetch(Admin admin) {
        try {
            return ClusterOverview.fetch(admin, Duration.ofSeconds(2), Duration.ofSeconds(30));
        } catch (IllegalStateException e) {
            throw new CliException("cannot read the cluster: " + e.getMessage(), e);
        }
    }

    /** One frame as a JSON document: brokers with leader counts, busiest, under-replicated, groups with lag. */
    private ObjectNode json(ClusterOverview now, ClusterOverview before, long elapsedMs) {
        ObjectNode doc = Json.object();
        doc.put("clusterId", now.clusterId()).put("controllerId", now.controllerId())
            .put("quorumLeaderId", now.quorum().leaderId()).put("term", now.quorum().term());
        var leaders = TopView.leaderCounts(now);
        ArrayNode brokers = doc.putArray("brokers");
        now.brokers().forEach(b -> brokers.addObject().put("id", b.id()).put("endpoint", b.endpoint()).put("rack", b.rack())
            .put("state", b.state()).put("leaders", leaders.getOrDefault(b.id(), 0L)));
        ArrayNode busiest = doc.putArray("busiest");
        for (TopView.Busy b : TopView.busiest(now, before, elapsedMs, rows)) {
            ObjectNode o = partition(busiest.addObject(), b.partition());
            if (b.recordsPerSec() == null) {
                o.putNull("recordsPerSec");
            } else {
                o.put("recordsPerSec", b.recordsPerSec());
            }
        }
        ArrayNode under = doc.putArray("underReplicated");
        now.partitions().stream().filter(PartitionView::underReplicated).forEach(p -> partition(under.addObject(), p));
        if (now.groupsError() != null) {
            doc.put("groupsError", now.groupsError());
        }
        ArrayNode groups = doc.putArray("groups");
        now.groups().forEach(g -> {
            ObjectNode o = groups.addObject().put("group", g.group()).put("state", g.state()).put("coordinator", g.coordinator())
                .put("members", g.members().size()).put("lag", g.totalLag());
            if (g.error() != null) {
                o.put("error", g.error());
            }
        });
        return doc;
    }

    private static ObjectNode partition(ObjectNode o, PartitionView p) {
        o.put("topic", p.topic()).put("partition", p.partition()).put("leader", p.leader());
        ArrayNode isr = o.putArray("isr");
        p.isr().forEach(isr::add);
        ArrayNode osr = o.putArray("osr");
        p.osr().forEach(osr::add);
        if (p.logEndOffset() == null) {
            o.putNull("logEndOffset");
        } else {
            o.put("logEndOffset", p.logEndOffset());
        }
        return o;
    }
}
