package io.raftline.client.errors;

/**
 * Authentication with a broker failed: in the TLS handshake (its certificate is not trusted or not for its host name,
 * or it refused this client's certificate: none, expired, from another CA), or in SCRAM. Not retriable: the same files
 * and credentials fail the same way.
 * <p>Wire codes (as {@link SaslAuthenticationException}): SASL_AUTHENTICATION_FAILED, UNSUPPORTED_SASL_MECHANISM; a
 * failed TLS handshake has none (the connection never carried a request).
 */
public class AuthenticationException extends ApiException {

    /** Creates the exception with what failed. */
    public AuthenticationException(String message, Throwable cause) {
        super(message, cause);
    }
}
