package io.raftline.cli;

/** A failed operation: exit 1 with the message as the one {@code error:} line. */
public final class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public CliException(String message) {
        super(message);
    }

    public CliException(String message, Throwable cause) {
        super(message, cause);
    }
}
