package io.raftline.metadata.controller;

import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;

/** Builders of the wire {@link Error}. */
public final class Errors {

    public static final Error NONE = Error.newBuilder().setCode(ErrorCode.NONE).build();

    private Errors() {
    }

    public static Error of(ErrorCode code, String message) {
        return Error.newBuilder().setCode(code).setMessage(message).build();
    }
}
