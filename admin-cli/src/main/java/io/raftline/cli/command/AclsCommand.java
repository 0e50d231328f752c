package io.raftline.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.output.Json;
import io.raftline.cli.output.Table;
import io.raftline.client.admin.Admin;
import io.raftline.acl.Authorizer;
import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.acl.AclFilter;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.PatternType;
import io.raftline.protocol.acl.Permission;
import io.raftline.protocol.acl.ResourceType;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code raftline acls add|remove|list}: ACL bindings kept in the metadata quorum, as kafka-acls.sh manages them. */
@Command(name = "acls", description = "Adds, removes and lists ACLs (enforced with authorizer.enabled=true).",
    mixinStandardHelpOptions = true, subcommands = {AclsCommand.Add.class, AclsCommand.Remove.class, AclsCommand.ListAcls.class},
    footer = {"", "Examples:",
        "  raftline acls add --allow-principal User:app --operation write --operation describe --topic orders",
        "  raftline acls add --allow-principal User:billing --operation read --group billing",
        "  raftline acls list --topic orders --output json"})
public final class AclsCommand {

    /** Which resource: exactly one of a topic, a group or the cluster. */
    static final class Resource {
        @Option(names = "--topic", paramLabel = "T", required = true, description = "A topic (or * for every topic).")
        String topic;
        @Option(names = "--group", paramLabel = "G", required = true, description = "A consumer group (or *).")
        String group;
        @Option(names = "--cluster", required = true, description = "The cluster (admin operations).")
        boolean cluster;

        ResourceType type() {
            return topic != null ? ResourceType.TOPIC : group != null ? ResourceType.GROUP : ResourceType.CLUSTER;
        }

        String name() {
            return topic != null ? topic : group != null ? group : Authorizer.CLUSTER_NAME;
        }
    }

    /** Who: allowed or denied. */
    static final class Who {
        @Option(names = "--allow-principal", paramLabel = "P", required = true, description = "User:<name> or User:*.")
        String allow;
        @Option(names = "--deny-principal", paramLabel = "P", required = true, description = "User:<name> or User:*.")
        String deny;
    }

    /** What add and remove share. */
    abstract static class Change implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @ArgGroup(exclusive = true, multiplicity = "1")
        Who who;
        @Option(names = "--host", paramLabel = "H", defaultValue = "*", description = "A client IP address (default: *).")
        String host;
        @Option(names = "--operation", paramLabel = "OP", required = true, converter = OperationConverter.class,
            description = "read, write, create, delete, alter, describe, cluster-action, describe-configs, alter-configs, "
                + "idempotent-write or all (repeatable).")
        List<Operation> operations;
        @ArgGroup(exclusive = true, multiplicity = "1")
        Resource resource;
        @Option(names = "--resource-pattern-type", paramLabel = "literal|prefixed", defaultValue = "literal",
            converter = PatternConverter.class,
            description = "literal (the name itself; default) or prefixed (every name that starts with it).")
        PatternType patternType;

        List<AclBinding> bindings() {
            List<AclBinding> out = new ArrayList<>();
            for (Operation op : operations) {
                out.add(AclBinding.newBuilder().setPrincipal(who.allow != null ? who.allow : who.deny).setHost(host)
                    .setResourceType(resource.type()).setResourceName(resource.name())
                    .setPatternType(patternType).setOperation(op)
                    .setPermission(who.allow != null ? Permission.ALLOW : Permission.DENY).build());
            }
            return out;
        }
    }

    @Command(name = "add", mixinStandardHelpOptions = true, description = "Adds ACLs: one per --operation.",
        footer = {"", "Example:", "  raftline acls add --allow-principal User:app --operation write --topic orders"})
    static final class Add extends Change {
        @Override
        public Integer call() {
            List<AclBinding> bindings = bindings();
            try (Admin admin = options.admin()) {
                Futures.get(admin.createAcls(bindings));
            }
            print(spec.commandLine().getOut(), options.json(), bindings, "Added");
            return 0;
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true, description = "Removes the ACLs these options name.",
        footer = {"", "Example:", "  raftline acls remove --allow-principal User:app --operation write --topic orders"})
    static final class Remove extends Change {
        @Override
        public Integer call() {
            List<AclFilter> filters = bindings().stream().map(AclsCommand::exactly).toList();
            List<AclBinding> removed;
            try (Admin admin = options.admin()) {
                removed = Futures.get(admin.deleteAcls(filters));
            }
            print(spec.commandLine().getOut(), options.json(), removed, "Removed");
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists ACLs, all or those of a principal or resource.",
        footer = {"", "Example:", "  raftline acls list --principal User:app --output json"})
    static final class ListAcls implements Callable<Integer> {
        @Mixin
        ClientOptions options;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--principal", paramLabel = "P", description = "Only this principal's ACLs.")
        String principal;
        @ArgGroup(exclusive = true)
        Resource resource;

        @Override
        public Integer call() {
            AclFilter.Builder filter = AclFilter.newBuilder();
            if (principal != null) {
                filter.setPrincipal(principal);
            }
            if (resource != null) {
                filter.setResourceType(resource.type()).setResourceName(resource.name());
            }
            List<AclBinding> acls;
            try (Admin admin = options.admin()) {
                acls = Futures.get(admin.describeAcls(filter.build()));
            }
            print(spec.commandLine().getOut(), options.json(), acls, null);
            return 0;
        }
    }

    static AclFilter exactly(AclBinding b) {
        return AclFilter.newBuilder().setPrincipal(b.getPrincipal()).setHost(b.getHost()).setResourceType(b.getResourceType())
            .setResourceName(b.getResourceName()).setPatternType(b.getPatternType()).setOperation(b.getOperation())
            .setPermission(b.getPermission()).build();
    }

    /** An operation as users write it: read, describe-configs, DescribeConfigs, DESCRIBE_CONFIGS. */
    static final class OperationConverter implements CommandLine.ITypeConverter<Operation> {
        @Override
        public Operation convert(String text) {
            String wanted = squash(text);
            for (Operation op : Operation.values()) {
                if (op != Operation.OPERATION_UNSPECIFIED && op != Operation.UNRECOGNIZED && squash(op.name()).equals(wanted)) {
                    return op;
                }
            }
            throw new CommandLine.TypeConversionException("'" + text + "' is not an operation: one of read, write, "
                + "create, delete, alter, describe, cluster-action, describe-configs, alter-configs, idempotent-write, all");
        }
    }

    static final class PatternConverter implements CommandLine.ITypeConverter<PatternType> {
        @Override
        public PatternType convert(String text) {
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "literal" -> PatternType.LITERAL;
                case "prefixed" -> PatternType.PREFIXED;
                default -> throw new CommandLine.TypeConversionException("'" + text + "' is not literal or prefixed");
            };
        }
    }

    private static String squash(String s) {
        return s.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
    }

    static void print(PrintWriter out, boolean json, List<AclBinding> acls, String verb) {
        if (json) {
            ObjectNode doc = Json.object();
            ArrayNode array = doc.putArray("acls");
            for (AclBinding b : acls) {
                array.addObject().put("principal", b.getPrincipal()).put("host", b.getHost())
                    .put("resourceType", Authorizer.name(b.getResourceType())).put("resourceName", b.getResourceName())
                    .put("patternType", b.getPatternType().name().toLowerCase(Locale.ROOT))
                    .put("operation", Authorizer.name(b.getOperation()))
                    .put("permission", b.getPermission().name().toLowerCase(Locale.ROOT));
            }
            Json.print(out, doc);
            return;
        }
        if (verb != null) {
            out.println(verb + " " + acls.size() + " ACL(s).");
        }
        Table table = new Table("PRINCIPAL", "HOST", "RESOURCE", "NAME", "PATTERN", "OPERATION", "PERMISSION");
        acls.forEach(b -> table.row(b.getPrincipal(), b.getHost(), Authorizer.name(b.getResourceType()), b.getResourceName(),
            b.getPatternType().name().toLowerCase(Locale.ROOT), Authorizer.name(b.getOperation()),
            b.getPermission().name().toLowerCase(Locale.ROOT)));
        table.print(out);
    }
}
