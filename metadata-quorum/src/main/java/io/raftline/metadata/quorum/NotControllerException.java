package io.raftline.metadata.quorum;

/** This node is not the active controller (or stopped being it before a write committed). */
public final class NotControllerException extends Exception {

    public NotControllerException(String message) {
        super(message);
    }

    public NotControllerException(String message, Throwable cause) {
        super(message, cause);
    }
}
