package io.raftline.client.errors;

/**
 * SCRAM authentication on a SASL_SSL listener failed: a wrong password, an unknown user, a mechanism the user has no
 * credential for, or a listener that is not SASL_SSL. Not retriable: the same credentials fail the same way.
 */
public class SaslAuthenticationException extends AuthenticationException {

    /** Creates the exception with what failed. */
    public SaslAuthenticationException(String message) {
        super(message, null);
    }
}
