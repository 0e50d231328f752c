package io.raftline.client.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ErrorsTest {

    private static final Set<ErrorCode> RETRIABLE = EnumSet.of(ErrorCode.CORRUPT_MESSAGE, ErrorCode.NOT_LEADER,
        ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        ErrorCode.REQUEST_TIMED_OUT, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.COORDINATOR_NOT_AVAILABLE,
        ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.THROTTLED,
        ErrorCode.UNKNOWN_LEADER_EPOCH, ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.NOT_CONTROLLER,
        ErrorCode.BROKER_NOT_AVAILABLE, ErrorCode.STORAGE_ERROR, ErrorCode.OFFSET_NOT_AVAILABLE,
        ErrorCode.FETCH_SESSION_ID_NOT_FOUND, ErrorCode.INVALID_FETCH_SESSION_EPOCH);

    @Test
    void everyCodeHasItsOwnTypeAndKeepsTheMessage() {
        Set<Class<?>> seen = new HashSet<>();
        for (ErrorCode code : ErrorCode.values()) {
            if (code == ErrorCode.NONE || code == ErrorCode.UNRECOGNIZED) {
                continue;
            }
            ApiException e = Errors.toException(Error.newBuilder().setCode(code).setMessage("broker says " + code).build());
            assertThat(e.getMessage()).isEqualTo("broker says " + code);
            assertThat(seen.add(e.getClass())).as("a distinct class for %s", code).isTrue();
            assertThat(e instanceof RetriableException).as("retriable %s", code).isEqualTo(RETRIABLE.contains(code));
            assertThat(Errors.isRetriable(code)).isEqualTo(RETRIABLE.contains(code));
        }
    }

    @Test
    void noneIsNoException() {
        assertThat(Errors.toException(ErrorCode.NONE, "x")).isNull();
    }

    @Test
    void unknownNumericCodeBecomesUnknownServerException() {
        Error wire = Error.newBuilder().setCodeValue(9999).setMessage("from the future").build();
        ApiException e = Errors.toException(wire);
        assertThat(e).isInstanceOf(UnknownServerException.class).hasMessage("from the future");
        assertThat(Errors.toException(ErrorCode.UNRECOGNIZED, "")).isInstanceOf(UnknownServerException.class)
            .hasMessageContaining("does not know");
    }

    @Test
    void specificMappings() {
        assertThat(Errors.toException(ErrorCode.NOT_LEADER, "")).isInstanceOf(NotLeaderException.class)
            .isInstanceOf(InvalidMetadataException.class).hasMessageContaining("NOT_LEADER");
        assertThat(Errors.toException(ErrorCode.TOPIC_ALREADY_EXISTS, "t")).isInstanceOf(TopicExistsException.class);
        assertThat(Errors.toException(ErrorCode.CORRUPT_MESSAGE, "c")).isInstanceOf(CorruptRecordException.class);
        assertThat(Errors.isInvalidMetadata(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)).isTrue();
        assertThat(Errors.isInvalidMetadata(ErrorCode.NOT_ENOUGH_REPLICAS)).isFalse();
    }
}
