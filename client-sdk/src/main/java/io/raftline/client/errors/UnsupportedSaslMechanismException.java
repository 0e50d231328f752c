package io.raftline.client.errors;

/**
 * The listener does not offer the SASL mechanism asked for (SCRAM-SHA-512 and SCRAM-SHA-256 are offered on a
 * SASL_SSL listener; a listener that is not SASL_SSL offers none). Not retriable.
 */
public class UnsupportedSaslMechanismException extends AuthenticationException {

    /** Creates the exception with the broker's message. */
    public UnsupportedSaslMechanismException(String message) {
        super(message, null);
    }
}
