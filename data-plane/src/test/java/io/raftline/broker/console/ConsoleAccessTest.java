package io.raftline.broker.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.console.ConsoleRoute.Kind;
import io.raftline.protocol.acl.Operation;
import io.raftline.protocol.acl.ResourceType;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConsoleAccessTest {

    /**
     * The ACLs granted in the table's last column: {@code create-cluster}, {@code create-topic} (CREATE on topic
     * 'orders'), {@code alter-cluster}, {@code read-group}, {@code read-topic}, joined by '+'; '-' for none.
     */
    private static ConsoleAccess.Acls granted(String spec) {
        Set<String> set = spec.equals("-") ? Set.of() : Set.of(spec.split("\\+"));
        return check -> set.contains(check.operation().name().toLowerCase() + "-" + check.type().name().toLowerCase());
    }

    @ParameterizedTest(name = "{0} admin={1} csrf={2} certs={3} acls-on={4} {5} granted {6} -> {7}")
    @CsvSource(delimiter = '|', nullValues = "null", value = {
        // action     | admin | csrf error         | certs | acls on | principal      | granted                 | status | error
        "CREATE_TOPIC | false | null               | true  | true    | User:alice     | create-cluster          | 403 | admin actions are disabled on this node (console.admin.enabled=false)",
        "CREATE_TOPIC | true  | missing CSRF token | true  | true    | User:alice     | create-cluster          | 403 | missing CSRF token",
        "CREATE_TOPIC | true  | wrong CSRF token   | false | false   | User:ANONYMOUS | -                       | 403 | wrong CSRF token",
        // no certificate shown where one is asked for, or where ACLs apply: 401 before any ACL is looked at
        "CREATE_TOPIC | true  | null               | true  | false   | User:ANONYMOUS | -                       | 401 | authentication required: show a client certificate or log in, over HTTPS",
        "CREATE_TOPIC | true  | null               | false | true    | User:ANONYMOUS | create-cluster          | 401 | authentication required: show a client certificate or log in, over HTTPS",
        "CREATE_TOPIC | true  | null               | true  | true    | null           | create-cluster          | 401 | authentication required: show a client certificate or log in, over HTTPS",
        // a plaintext listener without an authorizer: whoever reaches it acts, as before security
        "CREATE_TOPIC | true  | null               | false | false   | User:ANONYMOUS | -                       | 200 | null",
        // certificates but no authorizer: authenticated is enough
        "ELECT_LEADER | true  | null               | true  | false   | User:alice     | -                       | 200 | null",
        // the CLI's ACLs: CREATE on the cluster or on the topic
        "CREATE_TOPIC | true  | null               | true  | true    | User:alice     | -                       | 403 | User:alice is not authorized to CREATE the cluster or CREATE topic 'orders'",
        "CREATE_TOPIC | true  | null               | true  | true    | User:alice     | create-cluster          | 200 | null",
        "CREATE_TOPIC | true  | null               | true  | true    | User:alice     | create-topic            | 200 | null",
        "CREATE_TOPIC | true  | null               | true  | true    | User:alice     | alter-cluster           | 403 | User:alice is not authorized to CREATE the cluster or CREATE topic 'orders'",
        "ELECT_LEADER | true  | null               | true  | true    | User:alice     | create-cluster          | 403 | User:alice is not authorized to ALTER the cluster",
        "ELECT_LEADER | true  | null               | true  | true    | User:alice     | alter-cluster           | 200 | null",
        // OffsetCommit's: READ on the group and READ on the topic
        "RESET_OFFSETS | true | null               | true  | true    | User:alice     | read-group              | 403 | User:alice is not authorized to READ topic 'orders'",
        "RESET_OFFSETS | true | null               | true  | true    | User:alice     | read-topic              | 403 | User:alice is not authorized to READ group 'g1'",
        "RESET_OFFSETS | true | null               | true  | true    | User:alice     | read-group+read-topic   | 200 | null",
    })
    void decides(Kind action, boolean admin, String csrfError, boolean certificates, boolean aclsOn, String principal,
                 String granted, int status, String error) {
        ConsoleAccess.Decision d = ConsoleAccess.decide(admin, csrfError, certificates, aclsOn, principal,
            ConsoleAccess.needs(action, "orders", "g1"), granted(granted));
        assertThat(d.status()).as(String.valueOf(d)).isEqualTo(status);
        assertThat(d.error()).isEqualTo(error);
        assertThat(d.allowed()).isEqualTo(status == 200);
    }

    @org.junit.jupiter.api.Test
    void createTopicNeedsCreateOnTheClusterOrOnTheTopic() {
        assertThat(ConsoleAccess.needs(Kind.CREATE_TOPIC, "orders", "").get(0).anyOf())
            .extracting(ConsoleAccess.Check::operation, ConsoleAccess.Check::type)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(Operation.CREATE, ResourceType.CLUSTER),
                org.assertj.core.groups.Tuple.tuple(Operation.CREATE, ResourceType.TOPIC));
    }
}
