package io.raftline.client.errors;

/** The producer's {@code buffer.memory} stayed full for longer than {@code max.block.ms}. */
public class BufferExhaustedException extends TimeoutException {

    /** Creates the exception with a message. */
    public BufferExhaustedException(String message) {
        super(message);
    }
}
