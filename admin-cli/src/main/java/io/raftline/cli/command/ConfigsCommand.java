package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.AlterConfigOp;
import io.raftline.client.admin.Config;
import io.raftline.client.admin.ConfigEntry;
import io.raftline.client.admin.ConfigResource;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code raftline configs}: describe and alter topic and broker configs. */
@Command(name = "configs", description = "Describes and alters topic and broker configs.", mixinStandardHelpOptions = true,
    subcommands = {ConfigsCommand.Describe.class, ConfigsCommand.Alter.class},
    footer = {"", "Examples:", "  raftline configs describe --entity-type broker --entity-name 1",
        "  raftline configs alter --entity-type topic --entity-name orders --add-config retention.ms=3600000",
        "  raftline configs alter --entity-type clients --entity-name app --add-config producer_byte_rate=1048576"})
public final class ConfigsCommand {

    /** The entity both subcommands name. */
    static final class Entity {
        @Option(names = "--entity-type", required = true, paramLabel = "topic|broker|users|clients")
        String type;
        @Option(names = "--entity-name", required = true, paramLabel = "N")
        String name;

        /**
         * A topic entity must exist: asked about a topic it does not know, the broker's DescribeConfigs is retried
         * by the SDK until the API timeout, so the CLI checks first and says so at once.
         */
        void requireExists(Admin admin) {
            if (resource().type() == ConfigResource.Type.TOPIC) {
                Futures.get(admin.describeTopics(List.of(name)).allTopicNames());
            }
        }

        ConfigResource resource() {
            return switch (type.toLowerCase(Locale.ROOT)) {
                case "topic", "topics" -> new ConfigResource(ConfigResource.Type.TOPIC, name);
                case "broker", "brokers" -> new ConfigResource(ConfigResource.Type.BROKER, name);
                case "user", "users" -> new ConfigResource(ConfigResource.Type.USER, name);
                case "client", "clients" -> new ConfigResource(ConfigResource.Type.CLIENT, name);
                default -> throw new CliException("--entity-type must be topic, broker, users or clients, got '" + type + "'");
            };
        }
    }

    @Command(name = "describe", mixinStandardHelpOptions = true,
        description = "Shows every config of a topic or broker, or the quotas of a user or client id.",
        footer = {"", "Example:", "  raftline configs describe --entity-type topic --entity-name orders"})
    static final class Describe implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @Mixin
        Entity entity;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            ConfigResource resource = entity.resource();
            Config config;
            try (Admin admin = options.admin()) {
                entity.requireExists(admin);
                config = Futures.get(admin.describeConfigs(List.of(resource)).all()).get(resource);
            }
            List<ConfigEntry> entries = new ArrayList<>(config.entries());
            entries.sort(Comparator.comparing(ConfigEntry::name));
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                ObjectNode doc = Json.object().put("entityType", entity.type.toLowerCase(Locale.ROOT))
                    .put("entityName", entity.name);
                ArrayNode array = doc.putArray("configs");
                for (ConfigEntry e : entries) {
                    array.addObject().put("name", e.name()).put("value", e.value()).put("source", e.source())
                        .put("readOnly", e.readOnly());
                }
                Json.print(out, doc);
            } else {
                Table table = new Table("NAME", "VALUE", "SOURCE");
                // an empty value (e.g. no throttled replicas) as "-", so that the columns stay aligned
                entries.forEach(e -> table.row(e.name(), e.value() == null || e.value().isEmpty() ? null : e.value(), e.source()));
                table.print(out);
            }
            return 0;
        }
    }

    @Command(name = "alter", mixinStandardHelpOptions = true,
        description = "Sets or removes configs of a topic or broker, or the quotas of a user or client id.",
        footer = {"", "Example:", "  raftline configs alter --entity-type topic --entity-name orders "
            + "--add-config retention.ms=3600000,cleanup.policy=[compact,delete] --delete-config segment.bytes"})
    static final class Alter implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @Mixin
        Entity entity;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--add-config", paramLabel = "K=V[,K=V...]",
            description = "Configs to set; a value that is a list goes in brackets, as in Kafka: cleanup.policy=[compact,delete].")
        List<String> addConfigs = new ArrayList<>();
        @Option(names = "--delete-config", split = ",", paramLabel = "K[,K...]")
        List<String> delete = new ArrayList<>();

        @Override
        public Integer call() {
            Map<String, String> add = new LinkedHashMap<>();
            for (String text : addConfigs) {
                try {
                    ConfigAssignments.parse(text).forEach(add::put);
                } catch (IllegalArgumentException e) {
                    throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
                }
            }
            if (add.isEmpty() && delete.isEmpty()) {
                throw new CliException("nothing to alter: give --add-config or --delete-config");
            }
            ConfigResource resource = entity.resource();
            List<AlterConfigOp> ops = new ArrayList<>();
            add.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
            delete.forEach(k -> ops.add(new AlterConfigOp(new ConfigEntry(k, null), AlterConfigOp.OpType.DELETE)));
            try (Admin admin = options.admin()) {
                entity.requireExists(admin);
                Futures.get(admin.incrementalAlterConfigs(Map.of(resource, ops)).all());
            }
            PrintWriter out = spec.commandLine().getOut();
            if (options.json()) {
                ObjectNode doc = Json.object().put("ok", true).put("entityType", entity.type.toLowerCase(Locale.ROOT))
                    .put("entityName", entity.name);
                ObjectNode set = doc.putObject("set");
                add.forEach(set::put);
                ArrayNode removed = doc.putArray("deleted");
                delete.forEach(removed::add);
                Json.print(out, doc);
            } else {
                out.println("Altered configs of " + entity.type + " " + entity.name + ".");
                out.flush();
            }
            return 0;
        }
    }
}
