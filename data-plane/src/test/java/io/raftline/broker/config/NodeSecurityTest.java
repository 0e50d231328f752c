package io.raftline.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.common.ManualTime;
import io.raftline.common.config.ConfigException;
import io.raftline.common.tls.DevCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A node's TLS from server.properties: which listeners speak TLS, node principals, and the start-up errors. */
class NodeSecurityTest {

    private static final Instant NOW = Instant.parse("2026-06-01T00:00:00Z");
    private final ManualTime time = new ManualTime(NOW.toEpochMilli());

    @TempDir
    static Path dir;

    @BeforeAll
    static void certificates() {
        DevCertificates.createCa(dir, NOW.minus(Duration.ofDays(1)), Duration.ofDays(3650))
            .issue("node-1", List.of("localhost"), List.of("127.0.0.1"), dir, NOW.minus(Duration.ofDays(1)), Duration.ofDays(30));
    }

    private static Map<String, String> props(String... keyValues) {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("process.roles", "broker,controller");
        props.put("quorum.voters", "1@127.0.0.1:9093");
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1].replace("DIR", dir.toString()));
        }
        return props;
    }

    private static final String[] FILES = {"ssl.certificate.location", "DIR/node-1.pem", "ssl.key.location", "DIR/node-1.key",
        "ssl.truststore.location", "DIR/ca.pem"};

    private static String[] with(String... more) {
        String[] all = new String[FILES.length + more.length];
        System.arraycopy(FILES, 0, all, 0, FILES.length);
        System.arraycopy(more, 0, all, FILES.length, more.length);
        return all;
    }

    @Test
    void plaintextByDefaultReadsNoFiles() {
        NodeSecurity security = NodeSecurity.from(ServerConfig.of(props("ssl.certificate.location", "/nowhere.pem",
            "ssl.key.location", "/nowhere.key")), time);
        assertThat(security.broker().isTls()).isFalse();
        assertThat(security.controller().isTls()).isFalse();
        assertThat(security.quorum().quorumTls()).isNull();
        assertThat(security.metricsSslContext()).isNull();
    }

    @Test
    void eachListenerSpeaksWhatItsKeySays() {
        NodeSecurity security = NodeSecurity.from(ServerConfig.of(props(with("broker.listener.security.protocol", "SSL",
            "quorum.listener.security.protocol", "ssl", "ssl.client.auth", "required"))), time);
        assertThat(security.broker().isTls()).isTrue();
        assertThat(security.broker().isMutual()).isTrue();
        assertThat(security.controller().isTls()).isFalse();
        assertThat(security.quorum().quorumTls()).isNotNull();
        assertThat(security.quorum().quorumMutual()).isTrue();
        assertThat(security.metricsSslContext()).isNull();
    }

    @Test
    void saslSslIsTlsThenScramOnTheClientListeners() {
        NodeSecurity security = NodeSecurity.from(ServerConfig.of(props(with("broker.listener.security.protocol", "SASL_SSL",
            "kafka.listener.security.protocol", "sasl_ssl", "ssl.client.auth", "requested",
            "connections.max.reauth.ms", "60000"))), time);
        assertThat(security.broker().isTls()).isTrue();
        assertThat(security.brokerSasl()).isTrue();
        assertThat(security.kafka().isTls()).isTrue();
        assertThat(security.kafkaSasl()).isTrue();
        assertThat(security.broker().identifiesClients()).isTrue();
        assertThat(security.maxReauthMs()).isEqualTo(60_000);
        NodeSecurity tlsOnly = NodeSecurity.from(ServerConfig.of(props(with("kafka.listener.security.protocol", "SSL"))), time);
        assertThat(tlsOnly.kafka().isTls()).isTrue();
        assertThat(tlsOnly.kafkaSasl()).isFalse();
        assertThat(tlsOnly.broker().isTls()).isFalse();
    }

    @Test
    void nodePrincipalsAreTheSuperUsersAndThisNode() {
        NodeSecurity security = NodeSecurity.from(ServerConfig.of(props(with("broker.listener.security.protocol", "SSL",
            "super.users", "User:node-2; User:admin"))), time);
        assertThat(security.nodePrincipals()).accepts("User:node-1", "User:node-2", "User:admin")
            .rejects("User:app", "User:ANONYMOUS", "User:node-3");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "no certificate           | broker.listener.security.protocol=SSL | ssl.truststore.location=DIR/ca.pem"
            + " | missing config key 'ssl.certificate.location' (and 'ssl.key.location'): a node with an SSL listener",
        "certificate file missing | metrics.listener.security.protocol=SSL | ssl.certificate.location=DIR/gone.pem"
            + " | ssl.certificate.location DIR/gone.pem does not exist",
        "SASL_SSL for nodes       | controller.listener.security.protocol=SASL_SSL | ssl.client.auth=none"
            + " | invalid value 'SASL_SSL' for config key 'controller.listener.security.protocol'",
        "SASL_SSL without certs   | broker.listener.security.protocol=SASL_SSL | ssl.client.auth=none"
            + " | the nodes fetch from it with their certificates: set ssl.client.auth=requested",
        "bad reauth               | broker.listener.security.protocol=SSL | connections.max.reauth.ms=-1"
            + " | connections.max.reauth.ms",
        "bad protocol             | broker.listener.security.protocol=TLS | ssl.client.auth=none"
            + " | invalid value 'TLS' for config key 'broker.listener.security.protocol'",
        "bad client auth          | broker.listener.security.protocol=SSL | ssl.client.auth=always"
            + " | invalid value 'always' for config key 'ssl.client.auth'",
        "bad mapping rule         | broker.listener.security.protocol=SSL | ssl.principal.mapping.rules=RULE:x"
            + " | ssl.principal.mapping.rules",
    })
    void aBadSetupIsOneErrorAtStart(String name, String first, String second, String expected) {
        Map<String, String> p = props("ssl.certificate.location", "DIR/node-1.pem", "ssl.key.location", "DIR/node-1.key",
            "ssl.truststore.location", "DIR/ca.pem");
        for (String kv : new String[] {first, second}) {
            String[] parts = kv.split("=", 2);
            p.put(parts[0], parts[1].replace("DIR", dir.toString()));
        }
        if (name.startsWith("no certificate")) {
            p.remove("ssl.certificate.location");
            p.remove("ssl.key.location");
        }
        assertThatThrownBy(() -> NodeSecurity.from(ServerConfig.of(p), time)).isInstanceOf(ConfigException.class)
            .hasMessageContaining(expected.replace("DIR", dir.toString()));
    }
}
