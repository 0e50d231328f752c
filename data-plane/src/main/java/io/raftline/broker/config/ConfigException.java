package io.raftline.broker.config;

/** A config that cannot be used; the message is the one line an operator sees, naming the key. */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }
}
