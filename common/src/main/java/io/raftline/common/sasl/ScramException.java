package io.raftline.common.sasl;

/** A SCRAM exchange that failed: a bad message, a wrong password, an unknown user, or a server that cannot prove itself. */
public final class ScramException extends Exception {

    private static final long serialVersionUID = 1L;

    public ScramException(String message) {
        super(message);
    }
}
