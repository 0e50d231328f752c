package io.raftline.client.internals.net;

import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.raftline.client.errors.BrokerNotAvailableException;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.errors.UnknownServerException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Transport failures (gRPC status codes) as SDK exceptions. Application errors never travel as gRPC statuses (they
 * are {@code ErrorCode}s inside responses); a status means the call itself failed: the broker is unreachable, the call
 * timed out, or the broker broke its contract.
 */
public final class GrpcErrors {

    private GrpcErrors() {
    }

    /** The SDK exception for a failure of a call to {@code address}; SDK exceptions pass through unchanged. */
    public static RaftlineException toException(Throwable t, String address) {
        Throwable cause = unwrap(t);
        if (cause instanceof RaftlineException re) {
            return re;
        }
        if (cause instanceof java.util.concurrent.TimeoutException) {
            return new TimeoutException("No response from " + address + " in time", cause);
        }
        Status status = cause instanceof StatusRuntimeException sre ? sre.getStatus()
            : cause instanceof StatusException se ? se.getStatus() : null;
        if (status == null) {
            return new UnknownServerException("Call to " + address + " failed: " + cause, cause);
        }
        String tls = tlsFailure(status);
        if (tls != null) {
            return new io.raftline.client.errors.AuthenticationException("authentication failed: broker " + address + ": " + tls,
                cause);
        }
        if (status.getCode() == Status.Code.UNAUTHENTICATED) {
            // the listener's own words: "authentication failed: invalid credentials for user 'x' ..."
            return new io.raftline.client.errors.SaslAuthenticationException(status.getDescription() == null
                ? "authentication failed: broker " + address : status.getDescription());
        }
        String text = "broker " + address + ": " + status.getCode()
            + (status.getDescription() == null ? "" : " (" + status.getDescription() + ")");
        if (status.getCode() == Status.Code.UNAVAILABLE && status.getDescription() != null
            && status.getDescription().contains(CLOSED_AT_ONCE)) {
            // what a plaintext client sees from a TLS listener: it hangs up on the first bytes
            text += "; the broker closed the connection at once: if its listener is TLS, set security.protocol=SSL "
                + "(or SASL_SSL) and ssl.truststore.location";
        }
        return switch (status.getCode()) {
            case DEADLINE_EXCEEDED -> new TimeoutException(text, cause);
            case UNAVAILABLE, CANCELLED, ABORTED, RESOURCE_EXHAUSTED, UNKNOWN -> new BrokerNotAvailableException(text, cause);
            default -> new UnknownServerException(text, cause);
        };
    }

    /** gRPC's words when the other side closes a connection it never spoke HTTP/2 on. */
    static final String CLOSED_AT_ONCE = "Network closed for unknown reason";

    /** What failed in a TLS handshake behind {@code status} (the JDK's own words), or null if none did. */
    static String tlsFailure(Status status) {
        if (status.getCode() != Status.Code.UNAVAILABLE) {
            return null;
        }
        for (Throwable c = status.getCause(); c != null; c = c.getCause()) {
            if (c instanceof javax.net.ssl.SSLException) {
                Throwable root = c;
                while (root.getCause() != null && root.getCause().getMessage() != null) {
                    root = root.getCause();
                }
                String message = root.getMessage() != null ? root.getMessage() : c.getMessage();
                return message == null ? c.getClass().getSimpleName() : message;
            }
        }
        return null;
    }

    /** Strips the wrappers that futures add. */
    public static Throwable unwrap(Throwable t) {
        Throwable cause = t;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
