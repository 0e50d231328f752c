package io.raftline.common.config;

/**
 * A configuration that cannot be used; the message is the one line a person sees, naming the key. An illegal argument:
 * a config handed to a constructor or an admin call that cannot take it.
 */
public class ConfigException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    /** {@code invalid value 'V' for config key 'K': WHY}, the one shape of a bad value everywhere. */
    public ConfigException(String key, Object value, String why) {
        super(invalidValue(key, value, why));
    }

    /** The message of a bad value, for the exceptions of other layers that must say the same thing. */
    public static String invalidValue(String key, Object value, String why) {
        String shown = value instanceof Class<?> c ? c.getName() : String.valueOf(value);
        return "invalid value '" + shown + "' for config key '" + key + "': " + why;
    }
}
