package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.QuorumInfo;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code raftline quorum}: the metadata quorum's state and membership. */
@Command(name = "quorum", description = "Shows the metadata quorum; adds and removes voters.",
    mixinStandardHelpOptions = true,
    subcommands = {QuorumCommand.Status.class, QuorumCommand.AddVoter.class, QuorumCommand.RemoveVoter.class},
    footer = {"", "Examples:", "  raftline quorum status", "  raftline quorum remove-voter --id 4"})
public final class QuorumCommand {

    @Command(name = "status", mixinStandardHelpOptions = true,
        description = "Leader, term, commit index, and each voter's lag and last contact.",
        footer = {"", "Example:", "  raftline quorum status --output json"})
    static final class Status implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            QuorumInfo info;
            try (Admin admin = options.admin()) {
                info = Futures.get(admin.describeMetadataQuorum().quorumInfo());
            }
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                ObjectNode doc = Json.object()
                    .put("leaderId", info.leaderId())
                    .put("term", info.term())
                    .put("controllerEpoch", info.controllerEpoch())
                    .put("commitIndex", info.commitIndex());
                peers(doc.putArray("voters"), info.voters());
                peers(doc.putArray("listeners"), info.observers());
                Json.print(out, doc);
                return 0;
            }
            out.println("Leader: " + (info.leaderId() < 0 ? "none" : info.leaderId()) + "   term: " + info.term()
                + "   controller epoch: " + info.controllerEpoch() + "   commit index: " + info.commitIndex());
            Table table = new Table("VOTER", "ENDPOINT", "LAG-ENTRIES", "LAST-CONTACT-MS");
            for (QuorumInfo.ReplicaState v : info.voters()) {
                table.row(v.replicaId() + (v.replicaId() == info.leaderId() ? " (leader)" : ""), v.endpoint(), v.lagEntries(),
                    v.lastContactMs());
            }
            for (QuorumInfo.ReplicaState o : info.observers()) {
                table.row(o.replicaId() + " (observer)", o.endpoint(), o.lagEntries(), o.lastContactMs());
            }
            table.print(out);
            return 0;
        }

        private static void peers(ArrayNode array, List<QuorumInfo.ReplicaState> peers) {
            for (QuorumInfo.ReplicaState p : peers) {
                array.addObject().put("id", p.replicaId()).put("endpoint", p.endpoint()).put("lagEntries", p.lagEntries())
                    .put("lastContactMs", p.lastContactMs());
            }
        }
    }

    @Command(name = "add-voter", mixinStandardHelpOptions = true,
        description = "Adds a voter to the metadata quorum. Format the new node with the cluster id and start it first.",
        footer = {"", "Example:", "  raftline quorum add-voter --id 4 --endpoint 10.0.0.4:9093"})
    static final class AddVoter implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @CommandLine.Option(names = "--id", required = true, paramLabel = "N")
        int id;
        @CommandLine.Option(names = "--endpoint", required = true, paramLabel = "HOST:PORT",
            description = "The new node's quorum.listener.")
        String endpoint;

        @Override
        public Integer call() {
            if (!endpoint.matches(".+:[0-9]{1,5}")) {
                throw new CliException("--endpoint must be HOST:PORT, got '" + endpoint + "'");
            }
            try (Admin admin = options.admin()) {
                Futures.get(admin.addMetadataVoter(id, endpoint));
            }
            done(spec, options, "Added voter " + id + " (" + endpoint + ") to the quorum.",
                Json.object().put("ok", true).put("added", id).put("endpoint", endpoint));
            return 0;
        }
    }

    @Command(name = "remove-voter", mixinStandardHelpOptions = true,
        description = {"Removes a voter from the metadata quorum.",
            "The node stops voting and stays on as an observer that keeps receiving the metadata (as a voter removed"
                + " from a KRaft quorum goes on as an observer); `add-voter` makes it a voter again. Run remove-voter"
                + " for an observer to drop it from the configuration altogether (a decommissioned node)."},
        footer = {"", "Example:", "  raftline quorum remove-voter --id 4"})
    static final class RemoveVoter implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @CommandLine.Option(names = "--id", required = true, paramLabel = "N")
        int id;

        @Override
        public Integer call() {
            boolean wasVoter;
            try (Admin admin = options.admin()) {
                wasVoter = Futures.get(admin.describeMetadataQuorum().quorumInfo()).voters().stream()
                    .anyMatch(v -> v.replicaId() == id);
                Futures.get(admin.removeMetadataVoter(id));
            }
            done(spec, options, wasVoter ? "Node " + id + " no longer votes; it stays on as an observer."
                    : "Removed observer " + id + " from the quorum.",
                Json.object().put("ok", true).put("removed", id).put("observer", wasVoter));
            return 0;
        }
    }

    static void done(CommandLine.Model.CommandSpec spec, ClientOptions options, String text, ObjectNode json) {
        PrintWriter out = spec.commandLine().getOut();
        if (options.json()) {
            Json.print(out, json);
        } else {
            out.println(text);
            out.flush();
        }
    }
}
