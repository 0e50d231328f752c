package io.raftline.client.errors;

/**
 * The TLS handshake with a broker failed: its certificate is not trusted or not for its host name, or it refused this
 * client's certificate (none, expired, from another CA). Not retriable: the same files fail the same way.
 * <p>No wire code: the connection never carried a request.
 */
public class AuthenticationException extends RaftlineException {

    /** Creates the exception with what failed. */
    public AuthenticationException(String message, Throwable cause) {
        super(message, cause);
    }
}
