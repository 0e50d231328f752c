package io.raftline.broker.replica;

import io.raftline.protocol.ErrorCode;

/** A request the replica layer refuses, with the wire code and the broker's own words. */
public final class ReplicaException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public ReplicaException(ErrorCode code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
