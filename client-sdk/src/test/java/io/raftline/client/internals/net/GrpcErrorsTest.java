package io.raftline.client.internals.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.raftline.client.errors.BrokerNotAvailableException;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.errors.SaslAuthenticationException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.errors.UnknownServerException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** gRPC statuses as the SDK's exceptions, and the words a user sees. */
class GrpcErrorsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "UNAUTHENTICATED  | authentication failed: invalid credentials for user 'a' | SaslAuthenticationException"
            + " | authentication failed: invalid credentials for user 'a'",
        "UNAVAILABLE      | Network closed for unknown reason | BrokerNotAvailableException"
            + " | if its listener is TLS, set security.protocol=SSL",
        "UNAVAILABLE      | io exception | BrokerNotAvailableException | broker b:1: UNAVAILABLE (io exception)",
        "DEADLINE_EXCEEDED| slow | TimeoutException | broker b:1: DEADLINE_EXCEEDED (slow)",
        "INTERNAL         | bug | UnknownServerException | broker b:1: INTERNAL (bug)",
    })
    void statusesBecomeTheSdksExceptions(String code, String description, String type, String message) {
        RaftlineException e = GrpcErrors.toException(new CompletionException(
            Status.fromCode(Status.Code.valueOf(code.trim())).withDescription(description).asRuntimeException()), "b:1");
        Class<?> expected = switch (type.trim()) {
            case "SaslAuthenticationException" -> SaslAuthenticationException.class;
            case "BrokerNotAvailableException" -> BrokerNotAvailableException.class;
            case "TimeoutException" -> TimeoutException.class;
            default -> UnknownServerException.class;
        };
        assertThat(e).isInstanceOf(expected);
        assertThat(e.getMessage()).contains(message.trim());
    }
}
