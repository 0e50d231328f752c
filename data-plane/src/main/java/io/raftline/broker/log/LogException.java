package io.raftline.broker.log;

import io.raftline.protocol.ErrorCode;

/**
 * A log operation refused or failed, with the wire code to answer: CORRUPT_MESSAGE / UNSUPPORTED_FORMAT /
 * MESSAGE_TOO_LARGE / INVALID_RECORD for bad input (nothing was written), OFFSET_OUT_OF_RANGE for a read outside
 * the log, STORAGE_ERROR when the log's directory is offline.
 */
public final class LogException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient ErrorCode code;

    public LogException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public LogException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
