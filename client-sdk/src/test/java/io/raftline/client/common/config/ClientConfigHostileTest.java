package io.raftline.client.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.AdminClientConfig;
import io.raftline.client.consumer.ConsumerConfig;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.client.errors.ConfigException;
import io.raftline.client.producer.ProducerConfig;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.common.config.ConfigDef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Random client properties, as a --command-config file or an application hands them to the SDK: a producer's,
 * consumer's or admin client's required keys, then some of its defined keys with hostile values (bad numbers, out of
 * range, bad booleans and enums, host:port lists that are not, class names of no class or of the wrong kind, unicode,
 * 10,000-character values) and unknown keys. Each builds the client (closed at once; nothing listens at the
 * bootstrap address) or fails with one {@link ConfigException} naming a key; never another exception.
 */
class ClientConfigHostileTest {

    private static final long SEED = 20261209L;

    private static Gen<String> values() {
        return Generate.pick(List.of("", " ", "-1", "0", "1", "5", "all", "ALL", "-2", "2147483648", "9223372036854775808",
                "1.5", "NaN", "true", "false", "yes", "none", "gzip", "lz4", "zstd", "bogus", "earliest", "latest", "read_committed",
                "127.0.0.1:1", "host", "host:", ":1", "host:70000", "a:1,,b:2", "java.lang.Object", "java.lang.String",
                "io.raftline.client.common.serialization.StringSerializer",
                "io.raftline.client.common.serialization.StringDeserializer", "no.such.Clazz", "\u00e9", "a\u0000b",
                "\ud800"))
            .mix(strings().allPossible().ofLengthBetween(0, 16), 15)
            .mix(strings().ascii().ofLength(10_000), 3)
            .mix(integers().all().map(i -> String.valueOf(i)), 15);
    }

    private static Gen<Properties> configs(ConfigDef def, String... required) {
        Gen<String> keys = Generate.pick(new ArrayList<>(def.names())).mix(Generate.pick(List.of("no.such.key", "",
            "schema.registry.url")), 5);
        return lists().of(keys.zip(values(), (k, v) -> new String[] {k, v})).ofSizeBetween(1, 3).map(entries -> {
            Properties props = new Properties();
            props.setProperty("bootstrap.servers", "127.0.0.1:1");
            for (int i = 0; i < required.length; i += 2) {
                props.setProperty(required[i], required[i + 1]);
            }
            entries.forEach(e -> props.setProperty(e[0], e[1]));
            return props;
        });
    }

    @Test
    void producerConfigs() {
        check(configs(ProducerConfig.configDef(), "key.serializer", "io.raftline.client.common.serialization.StringSerializer",
            "value.serializer", "io.raftline.client.common.serialization.StringSerializer"), ProducerConfig.configDef(), props -> {
                ProducerConfig config = new ProducerConfig(props);
                config.acks();
                config.idempotenceEnabled();
                new RaftlineProducer<>(props).close(Duration.ZERO);
            });
    }

    @Test
    void consumerConfigs() {
        check(configs(ConsumerConfig.configDef(), "key.deserializer",
            "io.raftline.client.common.serialization.StringDeserializer", "value.deserializer",
            "io.raftline.client.common.serialization.StringDeserializer"), ConsumerConfig.configDef(), props -> {
                new ConsumerConfig(props);
                new RaftlineConsumer<>(props).close(Duration.ZERO);
            });
    }

    @Test
    void adminConfigs() {
        check(configs(AdminClientConfig.configDef()), AdminClientConfig.configDef(), props -> {
            new AdminClientConfig(props);
            Admin.create(props).close(Duration.ZERO);
        });
    }

    private interface Build {
        void build(Properties props);
    }

    private static void check(Gen<Properties> configs, ConfigDef def, Build build) {
        int[] outcomes = new int[2];
        qt().withFixedSeed(SEED).withExamples(250).withShrinkCycles(200).forAll(configs).checkAssert(props -> {
            try {
                build.build(props);
                outcomes[0]++;
            } catch (ConfigException e) {
                outcomes[1]++;
                assertThat(def.names().stream().anyMatch(k -> e.getMessage().contains(k)))
                    .as("the message names a config key: %s", e.getMessage()).isTrue();
            }
        });
        assertThat(outcomes[0]).as("clients built").isPositive();
        assertThat(outcomes[1]).as("configs refused").isPositive();
    }
}
