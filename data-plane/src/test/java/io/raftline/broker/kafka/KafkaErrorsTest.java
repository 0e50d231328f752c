package io.raftline.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.protocol.ErrorCode;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KafkaErrorsTest {

    @ParameterizedTest
    @CsvSource({
        "NONE, NONE",
        "UNKNOWN, UNKNOWN_SERVER_ERROR",
        "NOT_LEADER, NOT_LEADER_OR_FOLLOWER",
        "INVALID_TOPIC, INVALID_TOPIC_EXCEPTION",
        "STORAGE_ERROR, KAFKA_STORAGE_ERROR",
        "OUT_OF_ORDER_SEQUENCE, OUT_OF_ORDER_SEQUENCE_NUMBER",
        "DUPLICATE_SEQUENCE, DUPLICATE_SEQUENCE_NUMBER",
        "UNSUPPORTED_FORMAT, UNSUPPORTED_FOR_MESSAGE_FORMAT",
        "THROTTLED, THROTTLING_QUOTA_EXCEEDED",
        "FENCED_BROKER, BROKER_NOT_AVAILABLE",
        "NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS",
        "REBALANCE_IN_PROGRESS, REBALANCE_IN_PROGRESS",
        "UNRECOGNIZED, UNKNOWN_SERVER_ERROR",
    })
    void mapsTo(ErrorCode ours, Errors kafka) {
        assertThat(KafkaErrors.of(ours)).isEqualTo(kafka);
    }

    @Test
    void everyCodeHasAKafkaTwin() {
        Set<ErrorCode> codes = EnumSet.allOf(ErrorCode.class);
        codes.remove(ErrorCode.UNRECOGNIZED);
        assertThat(KafkaErrors.table().keySet()).containsExactlyInAnyOrderElementsOf(codes);
    }

    @Test
    void oneToOneButForTheBrokerToControllerCode() {
        Map<Errors, ErrorCode> seen = new HashMap<>();
        for (Map.Entry<ErrorCode, Errors> e : KafkaErrors.table().entrySet()) {
            if (e.getKey() == ErrorCode.FENCED_BROKER) {
                continue;
            }
            ErrorCode before = seen.put(e.getValue(), e.getKey());
            assertThat(before).as("%s and %s both map to %s", before, e.getKey(), e.getValue()).isNull();
        }
    }

    @Test
    void sameNameMeansSameError() {
        for (Map.Entry<ErrorCode, Errors> e : KafkaErrors.table().entrySet()) {
            for (Errors kafka : Errors.values()) {
                if (kafka.name().equals(e.getKey().name())) {
                    assertThat(e.getValue()).as(e.getKey().name()).isEqualTo(kafka);
                }
            }
        }
    }
}
