package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
    mixinStandardHelpOptions = true, subcommands = {QuorumCommand.Status.class})
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
}
