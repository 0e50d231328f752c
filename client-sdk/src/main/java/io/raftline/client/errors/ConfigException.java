package io.raftline.client.errors;

/** A client config key is unknown or its value is invalid; the message names the key. Thrown at construction. */
public class ConfigException extends RaftlineException {

    /** Creates the exception with a message that names the offending key. */
    public ConfigException(String message) {
        super(message);
    }

    /** Creates the exception for {@code key} having the bad {@code value}, saying why. */
    public ConfigException(String key, Object value, String why) {
        super(io.raftline.common.config.ConfigException.invalidValue(key, value, why));
    }
}
