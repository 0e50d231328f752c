package io.raftline.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.record.CompressionType;
import io.raftline.record.TimestampType;
import java.util.Map;
import org.junit.jupiter.api.Test;

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

    @Test
    void badValuesAndUnknownNamesAreRefusedWithTheKeyNamed() {
        assertThatThrownBy(() -> LogConfig.fromProperties(Map.of(), Map.of("retention.ms", "soon")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("invalid value for retention.ms: ");
        assertThatThrownBy(() -> LogConfig.fromProperties(Map.of(), Map.of("retention.ms", "-2")))
            .hasMessageStartingWith("invalid value for retention.ms");
        assertThatThrownBy(() -> LogConfig.fromProperties(Map.of(), Map.of("cleanup.policy", "archive")))
            .hasMessageStartingWith("invalid value for cleanup.policy");
        assertThatThrownBy(() -> LogConfig.fromProperties(Map.of(), Map.of("compression.type", "brotli")))
            .hasMessageStartingWith("invalid value for compression.type");
        assertThatThrownBy(() -> LogConfig.fromProperties(Map.of(), Map.of("unclean.leader.election.enable", "yes")))
            .hasMessageStartingWith("invalid value for unclean.leader.election.enable");
        assertThatThrownBy(() -> LogConfig.fromProperties(Map.of(), Map.of("segment.bytes", "99999999999")))
            .hasMessageStartingWith("invalid value for segment.bytes");
        assertThatThrownBy(() -> LogConfig.fromProperties(Map.of(), Map.of("retention.hours", "1")))
            .hasMessageStartingWith("unknown topic config: retention.hours");
        assertThatThrownBy(() -> LogConfig.fromProperties(Map.of("log.retention.ms", "x"), Map.of()))
            .hasMessageStartingWith("invalid value for retention.ms");
        assertThatThrownBy(() -> LogConfig.fromProperties(Map.of("log.retention.hours", "x"), Map.of()))
            .hasMessageStartingWith("invalid value for log.retention.hours");
    }
}
