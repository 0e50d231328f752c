package io.raftline.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.common.config.ConfigException;
import io.raftline.common.config.HostPort;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ServerConfigTest {

    private static Map<String, String> minimal() {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("process.roles", "broker,controller");
        props.put("quorum.voters", "1@127.0.0.1:9093,2@127.0.0.1:9103");
        return props;
    }

    @Test
    void defaultsAreKafkas() {
        ServerConfig config = ServerConfig.of(minimal());
        assertThat(config.getInt("num.partitions")).isEqualTo(1);
        assertThat(config.getInt("offsets.topic.num.partitions")).isEqualTo(50);
        assertThat(config.getInt("message.max.bytes")).isEqualTo(1_048_588);
        assertThat(config.getLong("replica.lag.time.max.ms")).isEqualTo(30_000L);
        assertThat(config.getBoolean("unclean.leader.election.enable")).isFalse();
        assertThat(config.getInt("max.incremental.fetch.session.cache.slots")).isEqualTo(1000);
        assertThat(config.getLong("log.flush.interval.messages")).isEqualTo(Long.MAX_VALUE);
        assertThat(config.brokerListener()).isEqualTo(new HostPort("0.0.0.0", 9092));
        assertThat(config.isBroker()).isTrue();
        assertThat(config.isController()).isTrue();
    }

    @Test
    void controllerBootstrapDefaultsToVoterPortPlusOne() {
        ServerConfig config = ServerConfig.of(minimal());
        assertThat(config.controllerBootstrapServers())
            .containsExactly(new HostPort("127.0.0.1", 9094), new HostPort("127.0.0.1", 9104));
        Map<String, String> props = minimal();
        props.put("controller.bootstrap.servers", "10.0.0.1:7000");
        assertThat(ServerConfig.of(props).controllerBootstrapServers()).containsExactly(new HostPort("10.0.0.1", 7000));
    }

    @Test
    void unknownKeyIsRefusedByName() {
        Map<String, String> props = minimal();
        props.put("log.retention.hourz", "5");
        assertThatThrownBy(() -> ServerConfig.of(props))
            .isInstanceOf(ConfigException.class)
            .hasMessage("unknown config key 'log.retention.hourz'");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "num.partitions|0|invalid value '0' for config key 'num.partitions': must be at least 1",
        "num.partitions|many|invalid value 'many' for config key 'num.partitions': expected an integer",
        "unclean.leader.election.enable|yes|invalid value 'yes' for config key 'unclean.leader.election.enable': expected true or false",
        "process.roles|broker,zookeeper|invalid value 'broker,zookeeper' for config key 'process.roles': 'zookeeper' is not one of broker, controller",
        "broker.listener|localhost|invalid value 'localhost' for config key 'broker.listener': expected HOST:PORT",
        "broker.listener|localhost:99999|invalid value 'localhost:99999' for config key 'broker.listener': port 99999 is out of range 0-65535",
        "quorum.voters|1@a:1,1@b:2|invalid value '1@a:1,1@b:2' for config key 'quorum.voters': voter 1 is listed twice",
        "log.cleanup.policy|delete,keep|invalid value 'delete,keep' for config key 'log.cleanup.policy': 'keep' is not one of delete, compact",
        "max.incremental.fetch.session.cache.slots|-1|invalid value '-1' for config key 'max.incremental.fetch.session.cache.slots': must be at least 0",
    })
    void badValuesAreRefusedNamingTheKey(String key, String value, String message) {
        Map<String, String> props = minimal();
        props.put(key, value);
        assertThatThrownBy(() -> ServerConfig.of(props)).isInstanceOf(ConfigException.class).hasMessage(message);
    }

    @Test
    void requiredKeysAreNamed() {
        Map<String, String> props = minimal();
        props.remove("node.id");
        assertThatThrownBy(() -> ServerConfig.of(props)).hasMessage("missing required config key 'node.id'");
        Map<String, String> noVoters = minimal();
        noVoters.remove("quorum.voters");
        assertThatThrownBy(() -> ServerConfig.of(noVoters)).hasMessageContaining("'quorum.voters'");
    }

    @Test
    void crossKeyChecks() {
        Map<String, String> props = minimal();
        props.put("broker.session.timeout.ms", "100");
        props.put("broker.heartbeat.interval.ms", "200");
        assertThatThrownBy(() -> ServerConfig.of(props)).hasMessageContaining("'broker.session.timeout.ms'");
    }

    @Test
    void loadsAFileAndReportsAMissingOne(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("server.properties");
        Files.writeString(file, "node.id=3\nprocess.roles=broker\nquorum.voters=1@h:9093\nlog.dirs=/a, /b\n");
        ServerConfig config = ServerConfig.load(file);
        assertThat(config.nodeId()).isEqualTo(3);
        assertThat(config.logDirs()).containsExactly(Path.of("/a"), Path.of("/b"));
        assertThat(config.isController()).isFalse();
        assertThatThrownBy(() -> ServerConfig.load(dir.resolve("nope.properties")))
            .hasMessageContaining("does not exist");
    }

    @Test
    void shippedServerPropertiesListsEveryKeyWithItsDefault() throws IOException {
        Path shipped = Path.of("../deploy/src/dist/config/server.properties");
        String text = Files.readString(shipped);
        assertThat(text).isEqualTo(ServerPropertiesDoc.render());
        for (String key : ServerConfig.DEF.keys().keySet()) {
            assertThat(text).contains(key + "=");
        }
        // and the shipped file itself is a valid config
        ServerConfig config = ServerConfig.load(shipped);
        assertThat(config.getList("process.roles")).isEqualTo(List.of("broker", "controller"));
    }

    /** The secure template, appended to the combined one and filled, is a valid config that secures every link. */
    @Test
    void theSecureTemplateOnTopOfANodesConfigSecuresEveryListener(@TempDir Path dir) throws IOException {
        String combined = Files.readString(Path.of("../deploy/src/dist/config/server-combined.properties"));
        String secure = Files.readString(Path.of("../deploy/src/dist/config/server-secure.properties"));
        java.util.Map<String, String> values = new java.util.HashMap<>(java.util.Map.ofEntries(
            java.util.Map.entry("NODE_ID", "1"), java.util.Map.entry("LOG_DIRS", "/data/logs"),
            java.util.Map.entry("DATA_DIR", "/data"), java.util.Map.entry("RACK", "r1"),
            java.util.Map.entry("LISTEN_HOST", "0.0.0.0"), java.util.Map.entry("HOST", "node1.example"),
            java.util.Map.entry("BROKER_PORT", "9092"), java.util.Map.entry("QUORUM_PORT", "9093"),
            java.util.Map.entry("CONTROLLER_PORT", "9094"), java.util.Map.entry("METRICS_PORT", "9095"),
            java.util.Map.entry("QUORUM_VOTERS", "1@node1.example:9093"),
            java.util.Map.entry("CONTROLLER_SERVERS", "node1.example:9094"), java.util.Map.entry("NUM_PARTITIONS", "3"),
            java.util.Map.entry("REPLICATION_FACTOR", "3"), java.util.Map.entry("MIN_INSYNC_REPLICAS", "2"),
            java.util.Map.entry("REPLICA_LAG_TIME_MAX_MS", "10000"), java.util.Map.entry("TLS_DIR", "/etc/raftline/tls"),
            java.util.Map.entry("NODE_NAME", "node-1"), java.util.Map.entry("SUPER_USERS", "User:node-1;User:admin")));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("@([A-Z_]+)@").matcher(combined + "\n" + secure);
        StringBuilder filled = new StringBuilder();
        while (m.find()) {
            assertThat(values).as("a value for @%s@", m.group(1)).containsKey(m.group(1));
            m.appendReplacement(filled, java.util.regex.Matcher.quoteReplacement(values.get(m.group(1))));
        }
        m.appendTail(filled);
        Path file = dir.resolve("server.properties");
        Files.writeString(file, filled);
        ServerConfig config = ServerConfig.load(file);
        for (String listener : io.raftline.common.tls.SecurityConfig.LISTENERS) {
            assertThat(config.getString(io.raftline.common.tls.SecurityConfig.listenerProtocolKey(listener)))
                .as(listener).isEqualTo("SSL");
        }
        assertThat(config.getString(io.raftline.common.tls.SecurityConfig.SSL_CLIENT_AUTH)).isEqualTo("required");
        assertThat(config.getBoolean(io.raftline.common.tls.SecurityConfig.AUTHORIZER_ENABLED)).isTrue();
        assertThat(config.getBoolean(io.raftline.common.tls.SecurityConfig.ALLOW_EVERYONE_IF_NO_ACL)).isFalse();
        assertThat(config.kafkaListener()).isNull();
    }
}
