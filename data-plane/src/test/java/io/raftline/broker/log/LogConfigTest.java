package io.raftline.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.record.CompressionType;
import io.raftline.record.TimestampType;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Broker defaults, topic overrides and validation of every value. */
class LogConfigTest {

    @Test
    void builtInDefaultsAreKafkas() {
        LogConfig c = LogConfig.fromProperties(Map.of(), Map.of());
        assertThat(c.retentionMs()).isEqualTo(604_800_000L);
        assertThat(c.retentionBytes()).isEqualTo(-1);
        assertThat(c.segmentBytes()).isEqualTo(1 << 30);
        assertThat(c.deleteEnabled()).isTrue();
        assertThat(c.compact()).isFalse();
        assertThat(c.maxMessageBytes()).isEqualTo(1_048_588);
        assertThat(c.flushMessages()).isEqualTo(Long.MAX_VALUE);
        assertThat(c.indexIntervalBytes()).isEqualTo(4096);
        assertThat(c.compressionCodec()).isNull();
        assertThat(c.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(LogConfig.TOPIC_CONFIG_NAMES).contains("retention.ms", "retention.bytes", "cleanup.policy", "segment.bytes",
            "segment.ms", "max.message.bytes", "delete.retention.ms", "flush.messages", "flush.ms", "compression.type",
            "min.insync.replicas", "unclean.leader.election.enable");
    }

    @Test
    void brokerKeysSetDefaultsAndTopicConfigsOverrideThem() {
        Map<String, String> broker = Map.of("log.retention.hours", "1", "log.segment.bytes", "1000000", "node.id", "3",
            "log.cleanup.policy", "compact", "message.max.bytes", "5000", "log.roll.hours", "2");
        assertThat(LogConfig.topicDefaults(broker)).containsEntry("retention.ms", "3600000").containsEntry("segment.ms", "7200000");
        LogConfig c = LogConfig.fromProperties(broker, Map.of("retention.ms", "1000", "cleanup.policy", "compact,delete",
            "compression.type", "zstd", "message.timestamp.type", "LogAppendTime"));
        assertThat(c.retentionMs()).isEqualTo(1000);
        assertThat(c.segmentBytes()).isEqualTo(1_000_000);
        assertThat(c.maxMessageBytes()).isEqualTo(5000);
        assertThat(c.compact()).isTrue();
        assertThat(c.deleteEnabled()).isTrue();
        assertThat(c.compressionCodec()).isEqualTo(CompressionType.ZSTD);
        assertThat(c.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(LogConfig.fromProperties(Map.of("log.retention.ms", "5", "log.retention.hours", "1"), Map.of()).retentionMs())
            .isEqualTo(5);
        assertThat(c.with(Map.of("retention.ms", "-1")).retentionMs()).isEqualTo(-1);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "retention.ms|soon|invalid value 'soon' for config key 'retention.ms': expected a long integer",
        "retention.ms|-2|invalid value '-2' for config key 'retention.ms': must be at least -1",
        "cleanup.policy|archive|invalid value 'archive' for config key 'cleanup.policy': 'archive' is not one of delete, compact",
        "compression.type|brotli|invalid value 'brotli' for config key 'compression.type': must be one of producer, "
            + "uncompressed, gzip, snappy, lz4, zstd",
        "unclean.leader.election.enable|yes|invalid value 'yes' for config key 'unclean.leader.election.enable': "
            + "expected true or false",
        "segment.bytes|99999999999|invalid value '99999999999' for config key 'segment.bytes': expected an integer",
        "message.timestamp.type|WallTime|invalid value 'WallTime' for config key 'message.timestamp.type': must be one "
            + "of CreateTime, LogAppendTime",
        "min.cleanable.dirty.ratio|2|invalid value '2' for config key 'min.cleanable.dirty.ratio': must be between 0.0 "
            + "and 1.0",
        "retention.hours|1|unknown topic config 'retention.hours'",
    })
    void badValuesAndUnknownNamesAreRefusedWithTheKeyNamed(String key, String value, String message) {
        assertThatThrownBy(() -> LogConfig.fromProperties(Map.of(), Map.of(key, value)))
            .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void badBrokerDefaultsAreRefusedToo() {
        assertThatThrownBy(() -> LogConfig.fromProperties(Map.of("log.retention.ms", "x"), Map.of()))
            .hasMessage("invalid value 'x' for config key 'retention.ms': expected a long integer");
        assertThatThrownBy(() -> LogConfig.fromProperties(Map.of("log.retention.hours", "x"), Map.of()))
            .hasMessage("invalid value 'x' for config key 'log.retention.hours': expected a whole number");
    }

    @Test
    void theControllerAndTheBrokerAcceptTheSameValues() {
        // every topic config, a good and a bad value: what the controller's check accepts, a broker's log takes
        Map<String, String[]> samples = new java.util.LinkedHashMap<>();
        samples.put("retention.ms", new String[] {"-1", "-5"});
        samples.put("segment.bytes", new String[] {"14", "13"});
        samples.put("segment.index.bytes", new String[] {"64", "63"});
        samples.put("compression.type", new String[] {"uncompressed", "none"});
        samples.put("cleanup.policy", new String[] {"compact,delete", "compact,"});
        samples.put("flush.messages", new String[] {"1", "0"});
        samples.put("min.insync.replicas", new String[] {"2", "0"});
        for (Map.Entry<String, String[]> e : samples.entrySet()) {
            String good = e.getValue()[0];
            String bad = e.getValue()[1];
            assertThat(io.raftline.common.config.TopicConfig.problem(e.getKey(), good)).as(e.getKey()).isEmpty();
            assertThat(LogConfig.fromProperties(Map.of(), Map.of(e.getKey(), good)).values()).containsEntry(e.getKey(), good);
            assertThat(io.raftline.common.config.TopicConfig.problem(e.getKey(), bad)).as(e.getKey() + "=" + bad).isPresent();
            assertThatThrownBy(() -> LogConfig.fromProperties(Map.of(), Map.of(e.getKey(), bad)))
                .as(e.getKey() + "=" + bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
