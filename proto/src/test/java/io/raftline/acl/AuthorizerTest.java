package io.raftline.acl;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.protocol.acl.AclBinding;
import io.raftline.protocol.acl.AclFilter;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.PatternType;
import io.raftline.protocol.acl.Permission;
import io.raftline.protocol.acl.ResourceType;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The authorization decision, as a table: ACLs, request, expected answer, and why (Kafka's semantics). */
class AuthorizerTest {

    private static final Authorizer CLOSED = new Authorizer(Set.of("User:admin"), false);
    private static final Authorizer OPEN = new Authorizer(Set.of("User:admin"), true);

    static AclBinding acl(String principal, String host, ResourceType type, String name, PatternType pattern,
                          Operation op, Permission permission) {
        return AclBinding.newBuilder().setPrincipal(principal).setHost(host).setResourceType(type).setResourceName(name)
            .setPatternType(pattern).setOperation(op).setPermission(permission).build();
    }

    static AclBinding allow(String principal, ResourceType type, String name, Operation op) {
        return acl(principal, "*", type, name, PatternType.LITERAL, op, Permission.ALLOW);
    }

    record Row(String why, Authorizer authorizer, List<AclBinding> acls, String principal, String host, Operation op,
               ResourceType type, String name, boolean allowed) {
    }

    private static final ResourceType TOPIC = ResourceType.TOPIC;
    private static final ResourceType GROUP = ResourceType.GROUP;

    private static final List<Row> TABLE = List.of(
        new Row("no ACL, closed", CLOSED, List.of(), "User:app", "10.0.0.1", Operation.WRITE, TOPIC, "orders", false),
        new Row("no ACL, allow.everyone.if.no.acl.found", OPEN, List.of(), "User:app", "10.0.0.1", Operation.WRITE, TOPIC,
            "orders", true),
        new Row("super user without ACLs", CLOSED, List.of(), "User:admin", "10.0.0.1", Operation.ALTER,
            ResourceType.CLUSTER, Authorizer.CLUSTER_NAME, true),
        new Row("super user despite a deny", CLOSED, List.of(acl("User:admin", "*", TOPIC, "orders", PatternType.LITERAL,
            Operation.ALL, Permission.DENY)), "User:admin", "10.0.0.1", Operation.WRITE, TOPIC, "orders", true),
        new Row("literal allow", CLOSED, List.of(allow("User:app", TOPIC, "orders", Operation.WRITE)), "User:app",
            "10.0.0.1", Operation.WRITE, TOPIC, "orders", true),
        new Row("allow of another operation", CLOSED, List.of(allow("User:app", TOPIC, "orders", Operation.READ)),
            "User:app", "10.0.0.1", Operation.WRITE, TOPIC, "orders", false),
        new Row("allow for another principal", CLOSED, List.of(allow("User:other", TOPIC, "orders", Operation.WRITE)),
            "User:app", "10.0.0.1", Operation.WRITE, TOPIC, "orders", false),
        new Row("ACLs on the resource close it even with allow.everyone", OPEN,
            List.of(allow("User:other", TOPIC, "orders", Operation.WRITE)), "User:app", "10.0.0.1", Operation.WRITE, TOPIC,
            "orders", false),
        new Row("allow.everyone opens a resource no ACL covers", OPEN,
            List.of(allow("User:other", TOPIC, "orders", Operation.WRITE)), "User:app", "10.0.0.1", Operation.WRITE, TOPIC,
            "payments", true),
        new Row("another topic's allow", CLOSED, List.of(allow("User:app", TOPIC, "orders", Operation.WRITE)), "User:app",
            "10.0.0.1", Operation.WRITE, TOPIC, "orders2", false),
        new Row("wildcard principal", CLOSED, List.of(allow("User:*", TOPIC, "orders", Operation.READ)), "User:app",
            "10.0.0.1", Operation.READ, TOPIC, "orders", true),
        new Row("wildcard topic", CLOSED, List.of(allow("User:app", TOPIC, "*", Operation.READ)), "User:app", "10.0.0.1",
            Operation.READ, TOPIC, "anything", true),
        new Row("prefixed allow matches", CLOSED, List.of(acl("User:app", "*", TOPIC, "orders.", PatternType.PREFIXED,
            Operation.WRITE, Permission.ALLOW)), "User:app", "10.0.0.1", Operation.WRITE, TOPIC, "orders.eu", true),
        new Row("prefixed allow does not match another prefix", CLOSED, List.of(acl("User:app", "*", TOPIC, "orders.",
            PatternType.PREFIXED, Operation.WRITE, Permission.ALLOW)), "User:app", "10.0.0.1", Operation.WRITE, TOPIC,
            "order", false),
        new Row("host must match", CLOSED, List.of(acl("User:app", "10.0.0.2", TOPIC, "orders", PatternType.LITERAL,
            Operation.WRITE, Permission.ALLOW)), "User:app", "10.0.0.1", Operation.WRITE, TOPIC, "orders", false),
        new Row("host matches", CLOSED, List.of(acl("User:app", "10.0.0.1", TOPIC, "orders", PatternType.LITERAL,
            Operation.WRITE, Permission.ALLOW)), "User:app", "10.0.0.1", Operation.WRITE, TOPIC, "orders", true),
        new Row("deny wins over allow", CLOSED, List.of(allow("User:app", TOPIC, "orders", Operation.ALL),
            acl("User:app", "*", TOPIC, "orders", PatternType.LITERAL, Operation.WRITE, Permission.DENY)), "User:app",
            "10.0.0.1", Operation.WRITE, TOPIC, "orders", false),
        new Row("a prefixed deny wins over a literal allow", CLOSED, List.of(allow("User:app", TOPIC, "orders", Operation.READ),
            acl("User:*", "*", TOPIC, "ord", PatternType.PREFIXED, Operation.READ, Permission.DENY)), "User:app",
            "10.0.0.1", Operation.READ, TOPIC, "orders", false),
        new Row("a deny of another operation leaves the allow", CLOSED, List.of(allow("User:app", TOPIC, "orders", Operation.ALL),
            acl("User:app", "*", TOPIC, "orders", PatternType.LITERAL, Operation.DELETE, Permission.DENY)), "User:app",
            "10.0.0.1", Operation.WRITE, TOPIC, "orders", true),
        new Row("deny READ does not deny DESCRIBE (implication is for allows only)", CLOSED,
            List.of(allow("User:app", TOPIC, "orders", Operation.DESCRIBE),
                acl("User:app", "*", TOPIC, "orders", PatternType.LITERAL, Operation.READ, Permission.DENY)), "User:app",
            "10.0.0.1", Operation.DESCRIBE, TOPIC, "orders", true),
        new Row("WRITE implies DESCRIBE", CLOSED, List.of(allow("User:app", TOPIC, "orders", Operation.WRITE)), "User:app",
            "10.0.0.1", Operation.DESCRIBE, TOPIC, "orders", true),
        new Row("READ implies DESCRIBE", CLOSED, List.of(allow("User:app", GROUP, "billing", Operation.READ)), "User:app",
            "10.0.0.1", Operation.DESCRIBE, GROUP, "billing", true),
        new Row("DESCRIBE does not imply READ", CLOSED, List.of(allow("User:app", TOPIC, "orders", Operation.DESCRIBE)),
            "User:app", "10.0.0.1", Operation.READ, TOPIC, "orders", false),
        new Row("ALTER_CONFIGS implies DESCRIBE_CONFIGS", CLOSED, List.of(allow("User:app", TOPIC, "orders",
            Operation.ALTER_CONFIGS)), "User:app", "10.0.0.1", Operation.DESCRIBE_CONFIGS, TOPIC, "orders", true),
        new Row("ALL allows anything", CLOSED, List.of(allow("User:app", TOPIC, "orders", Operation.ALL)), "User:app",
            "10.0.0.1", Operation.ALTER_CONFIGS, TOPIC, "orders", true),
        new Row("a topic ACL does not cover a group of the same name", CLOSED,
            List.of(allow("User:app", TOPIC, "billing", Operation.READ)), "User:app", "10.0.0.1", Operation.READ, GROUP,
            "billing", false));

    @Test
    void decisionsFollowTheTable() {
        for (Row row : TABLE) {
            Authorizer.Decision d = row.authorizer().authorize(AclIndex.of(row.acls()), row.principal(), row.host(), row.op(),
                row.type(), row.name());
            assertThat(d).as(row.why()).isEqualTo(row.allowed() ? Authorizer.Decision.ALLOWED : Authorizer.Decision.DENIED);
        }
    }

    @Test
    void invalidBindingsAreNamed() {
        AclBinding good = allow("User:app", TOPIC, "orders", Operation.WRITE);
        assertThat(Authorizer.invalid(good)).isEmpty();
        assertThat(Authorizer.invalid(good.toBuilder().setPrincipal("app").build())).get().asString().contains("User:");
        assertThat(Authorizer.invalid(good.toBuilder().setHost("").build())).get().asString().contains("host");
        assertThat(Authorizer.invalid(good.toBuilder().setResourceName("").build())).get().asString().contains("name");
        assertThat(Authorizer.invalid(good.toBuilder().setOperation(Operation.CLUSTER_ACTION).build())).get().asString()
            .contains("does not apply to a topic");
        assertThat(Authorizer.invalid(good.toBuilder().setPatternType(PatternType.PREFIXED).setResourceName("*").build()))
            .get().asString().contains("prefixed");
        assertThat(Authorizer.invalid(good.toBuilder().setResourceType(ResourceType.CLUSTER).setResourceName("x")
            .setOperation(Operation.ALTER).build())).get().asString().contains("kafka-cluster");
        assertThat(Authorizer.invalid(good.toBuilder().clearPermission().build())).get().asString().contains("permission");
        assertThat(Authorizer.invalid(good.toBuilder().clearOperation().build())).get().asString().contains("operation");
    }

    @Test
    void filtersMatchSetFieldsExactly() {
        AclBinding a = allow("User:app", TOPIC, "orders", Operation.WRITE);
        AclBinding b = allow("User:app", GROUP, "billing", Operation.READ);
        AclBinding c = allow("User:*", TOPIC, "*", Operation.READ);
        AclIndex index = AclIndex.of(List.of(a, b, c));
        assertThat(index.matching(AclFilter.getDefaultInstance())).containsExactlyInAnyOrder(a, b, c);
        assertThat(index.matching(AclFilter.newBuilder().setPrincipal("User:app").build())).containsExactlyInAnyOrder(a, b);
        assertThat(index.matching(AclFilter.newBuilder().setResourceType(TOPIC).setResourceName("orders").build()))
            .containsExactly(a);
        assertThat(index.matching(AclFilter.newBuilder().setResourceName("*").build())).containsExactly(c);
        assertThat(index.all()).as("sorted: topics before groups").first().isIn(a, c);
    }
}
