package io.raftline.metadata.quorum;

/**
 * A decision whose records would make a Raft entry above {@link WritePipeline#MAX_ENTRY_BYTES}: refused before it is
 * appended (answered INVALID_REQUEST), as one such entry stalls the leader long enough to lose its leadership.
 */
final class RequestTooLargeException extends RuntimeException {

    RequestTooLargeException(String message) {
        super(message);
    }
}
