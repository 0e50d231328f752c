package io.raftline.broker.storage;

/** A storage dir that can't be used as it is; the message says which dir and why. */
public final class StorageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StorageException(String message) {
        super(message);
    }
}
