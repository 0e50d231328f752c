package io.raftline.broker.group;

import io.raftline.protocol.ErrorCode;
import java.util.Objects;

/** A failed append to or read of {@code __consumer_offsets}, with the error the replica layer gave. */
public final class OffsetsTopicException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public OffsetsTopicException(ErrorCode code, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
    }

    public ErrorCode code() {
        return code;
    }
}
