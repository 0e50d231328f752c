package io.raftline.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import io.raftline.common.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Random server.properties: a valid node's keys, then some defined keys given hostile values (bad and out-of-range
 * numbers, bad booleans and enums, bad host:port lists and voters, unicode, control characters, 20,000-character
 * values) and unknown keys. Each is either a config whose every accessor answers (what the node reads at start), or
 * one {@link ConfigException} whose message names a config key; never another exception. Files too: bytes a
 * properties reader chokes on (a malformed backslash-u escape) are one ConfigException naming the file.
 */
class ServerConfigHostileTest {

    private static final long SEED = 20261208L;

    @TempDir
    Path tmp;

    private static Map<String, String> valid() {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("node.id", "1");
        props.put("process.roles", "broker,controller");
        props.put("quorum.voters", "1@127.0.0.1:9093,2@127.0.0.1:9103");
        props.put("log.dirs", "/tmp/raftline-fuzz/logs");
        return props;
    }

    static Gen<String> values() {
        return Generate.pick(List.of("", " ", "-1", "0", "1", "7", "-2147483648", "2147483648", "99999999999999999999",
                "1e3", "0x10", " 12 ", "NaN", "true", "TRUE", "yes", "false", "compact", "lz4", "snappy,zstd", "broker",
                "controller,broker,broker", "nonsense", "127.0.0.1:9092", "host:", ":9092", "host:99999", "h:-1", "[::1]:9092",
                "::1", "a:1,b", "a:1,,b:2", "1@h:1", "1@h:1,1@h:2", "x@h:1", "1@", "-5@h:1", "/dev/null", "relative/dir",
                "a\u0000b", "\u00e9\u00e8", "\ud83d\ude00", "\ud800", "java.lang.Object", "no.such.Clazz", "User:alice",
                "PLAINTEXT", "https", "SHA-256"))
            .mix(strings().allPossible().ofLengthBetween(0, 20), 15)
            .mix(strings().ascii().ofLengthBetween(19_000, 20_000), 3)
            .mix(integers().all().map(i -> String.valueOf(i)), 15);
    }

    private static Gen<Map<String, String>> configs() {
        List<String> defined = new ArrayList<>(ServerConfig.DEF.names());
        Gen<String> keys = Generate.pick(defined).mix(Generate.pick(List.of("no.such.key", "", "node.id ", "NODE.ID",
            "log.retention.hourz")), 5);
        Gen<Map.Entry<String, String>> entry = keys.zip(values(), Map::entry);
        return lists().of(entry).ofSizeBetween(1, 4).map(entries -> {
            Map<String, String> props = valid();
            entries.forEach(e -> props.put(e.getKey(), e.getValue()));
            return props;
        });
    }

    @Test
    void everyHostileConfigIsAValidConfigOrOneConfigExceptionNamingAKey() {
        int[] outcomes = new int[2];
        qt().withFixedSeed(SEED).withExamples(800).withShrinkCycles(200).forAll(configs()).checkAssert(props -> {
            ServerConfig config;
            try {
                config = ServerConfig.of(props);
            } catch (ConfigException e) {
                outcomes[1]++;
                assertThat(ServerConfig.DEF.names().stream().anyMatch(e.getMessage()::contains)
                    || props.keySet().stream().anyMatch(k -> e.getMessage().contains("'" + k + "'")))
                    .as("the message names a config key: %s", e.getMessage()).isTrue();
                return;
            }
            outcomes[0]++;
            readEverything(config);
        });
        assertThat(outcomes[0]).as("valid configs").isPositive();
        assertThat(outcomes[1]).as("refused configs").isPositive();
    }

    /** What a node reads of its config at start: each accessor must answer for a config that parsed. */
    private static void readEverything(ServerConfig config) {
        config.nodeId();
        config.isBroker();
        config.isController();
        config.logDirs();
        config.metadataDir();
        config.brokerListener();
        config.brokerAdvertisedListener();
        config.kafkaListener();
        config.kafkaAdvertisedListener();
        config.quorumListener();
        config.controllerListener();
        config.metricsListener();
        config.quorumVoters();
        config.controllerBootstrapServers();
        config.rack();
        config.effectiveValues();
        for (String key : ServerConfig.DEF.names()) {
            config.get(key);
        }
    }

    @Test
    void aFileAPropertiesReaderChokesOnIsOneConfigExceptionNamingTheFile() throws IOException {
        Path file = tmp.resolve("server.properties");
        StringBuilder text = new StringBuilder();
        valid().forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        text.append("broker.rack=rack\\u12G4\n");
        Files.writeString(file, text, StandardCharsets.UTF_8);
        try {
            ServerConfig.load(file);
            throw new AssertionError("a malformed escape was read");
        } catch (ConfigException e) {
            assertThat(e.getMessage()).contains(file.toString());
        }
    }
}
