package io.raftline.record;

import io.raftline.protocol.ErrorCode;

/**
 * Bytes that are not a well-formed batch or record, found while reading them. Carries the wire error code
 * (CORRUPT_MESSAGE, UNSUPPORTED_FORMAT or INVALID_RECORD) so a broker can answer with it.
 */
public final class RecordFormatException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient ErrorCode code;

    public RecordFormatException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public RecordFormatException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
