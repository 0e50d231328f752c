package io.raftline.broker.console;

/** A request the console refuses or cannot answer, with the HTTP status to answer and a one-line reason. */
public final class ConsoleException extends RuntimeException {

    private static final long serialVersionUID = 1L;
    private final int status;

    public ConsoleException(int status, String message) {
        super(message);
        this.status = status;
    }

    public ConsoleException(int status, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
