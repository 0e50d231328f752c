package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.BrokerDescription;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code raftline brokers list}: every registered broker; a dead one stays listed as fenced. */
@Command(name = "brokers", description = "Lists the brokers.", mixinStandardHelpOptions = true,
    subcommands = {BrokersCommand.ListBrokers.class},
    footer = {"", "Example:", "  raftline brokers list --output json"})
public final class BrokersCommand {

    @Command(name = "list", mixinStandardHelpOptions = true,
        description = "Every registered node with the broker role, with its state (active, fenced, shutting-down).",
        footer = {"", "Example:", "  raftline brokers list --output json"})
    static final class ListBrokers implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            List<BrokerDescription> brokers;
            try (Admin admin = options.admin()) {
                brokers = Futures.get(admin.describeBrokers());
            }
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                ObjectNode doc = Json.object();
                ArrayNode array = doc.putArray("brokers");
                for (BrokerDescription b : brokers) {
                    ObjectNode o = array.addObject().put("id", b.id()).put("endpoint", b.endpoint());
                    if (b.rack() == null) {
                        o.putNull("rack");
                    } else {
                        o.put("rack", b.rack());
                    }
                    o.put("state", b.state()).put("epoch", b.epoch());
                }
                Json.print(out, doc);
            } else {
                Table table = new Table("ID", "ENDPOINT", "RACK", "STATE", "EPOCH");
                brokers.forEach(b -> table.row(b.id(), b.endpoint(), b.rack(), b.state(), b.epoch()));
                table.print(out);
            }
            return 0;
        }
    }
}
