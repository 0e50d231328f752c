package io.raftline.client.common.config;

import io.raftline.client.errors.ConfigException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The declared keys of one client kind (producer, consumer, admin): each key's type, default, validator and doc.
 * {@link #parse(Map)} checks a user's map once, at construction of the client: an unknown key or a bad value fails
 * with one {@link ConfigException} naming the key, and nothing is created.
 */
public final class ConfigDef {

    /** The value types a key may have. */
    public enum Type { BOOLEAN, STRING, INT, LONG, DOUBLE, LIST, CLASS }

    /** Marks a key that has no default: the user must set it. */
    public static final Object NO_DEFAULT = new Object();

    /** Checks a parsed value; throws {@link ConfigException} with a reason. */
    @FunctionalInterface
    public interface Validator {
        /** Throws {@link ConfigException} if {@code value} is not acceptable for {@code name}. */
        void ensureValid(String name, Object value);
    }

    /** One declared key. */
    public record Key(String name, Type type, Object defaultValue, Validator validator, String doc) {
    }

    private final Map<String, Key> keys = new LinkedHashMap<>();

    /** Declares a key; a default of {@link #NO_DEFAULT} makes it required. */
    public ConfigDef define(String name, Type type, Object defaultValue, Validator validator, String doc) {
        if (keys.containsKey(name)) {
            throw new IllegalArgumentException("Config " + name + " is defined twice");
        }
        Object parsedDefault = defaultValue == NO_DEFAULT || defaultValue == null ? defaultValue : parseType(name, defaultValue, type);
        keys.put(name, new Key(name, type, parsedDefault, validator, doc));
        return this;
    }

    /** Declares a key without a validator. */
    public ConfigDef define(String name, Type type, Object defaultValue, String doc) {
        return define(name, type, defaultValue, null, doc);
    }

    /** The declared keys, in declaration order. */
    public Map<String, Key> keys() {
        return Collections.unmodifiableMap(keys);
    }

    /** The declared key names. */
    public Set<String> names() {
        return Collections.unmodifiableSet(keys.keySet());
    }

    /**
     * Parses and validates {@code props} against the declared keys, filling in defaults. Values may be strings (as
     * from a properties file) or already typed objects (an Integer, a Class, a List).
     *
     * @throws ConfigException for an unknown key, a missing required key, or a value of the wrong type or range
     */
    public Map<String, Object> parse(Map<?, ?> props) {
        for (Object k : props.keySet()) {
            if (!(k instanceof String name)) {
                throw new ConfigException("Configuration keys must be strings, got " + k);
            }
            if (!keys.containsKey(name)) {
                throw new ConfigException("Unknown configuration '" + name + "'");
            }
        }
        Map<String, Object> values = new LinkedHashMap<>();
        for (Key key : keys.values()) {
            Object value;
            if (props.containsKey(key.name)) {
                value = parseType(key.name, props.get(key.name), key.type);
            } else if (key.defaultValue == NO_DEFAULT) {
                throw new ConfigException("Missing required configuration '" + key.name + "' which has no default value");
            } else {
                value = key.defaultValue;
            }
            if (key.validator != null) {
                key.validator.ensureValid(key.name, value);
            }
            values.put(key.name, value);
        }
        return values;
    }

    /** Converts {@code value} to {@code type}, failing with a message that names {@code name}. */
    static Object parseType(String name, Object value, Type type) {
        if (value == null) {
            return null;
        }
        String trimmed = value instanceof String s ? s.trim() : null;
        try {
            switch (type) {
                case BOOLEAN:
                    if (value instanceof Boolean) {
                        return value;
                    }
                    if (trimmed != null && (trimmed.equalsIgnoreCase("true") || trimmed.equalsIgnoreCase("false"))) {
                        return Boolean.parseBoolean(trimmed);
                    }
                    throw new ConfigException(name, value, "expected true or false");
                case STRING:
                    if (value instanceof String) {
                        return trimmed;
                    }
                    throw new ConfigException(name, value, "expected a string");
                case INT:
                    if (value instanceof Integer) {
                        return value;
                    }
                    if (trimmed != null) {
                        return Integer.parseInt(trimmed);
                    }
                    throw new ConfigException(name, value, "expected a 32-bit integer");
                case LONG:
                    if (value instanceof Integer i) {
                        return i.longValue();
                    }
                    if (value instanceof Long) {
                        return value;
                    }
                    if (trimmed != null) {
                        return Long.parseLong(trimmed);
                    }
                    throw new ConfigException(name, value, "expected a 64-bit integer");
                case DOUBLE:
                    if (value instanceof Number n) {
                        return n.doubleValue();
                    }
                    if (trimmed != null) {
                        return Double.parseDouble(trimmed);
                    }
                    throw new ConfigException(name, value, "expected a number");
                case LIST:
                    if (value instanceof List<?> l) {
                        return List.copyOf(l);
                    }
                    if (trimmed != null) {
                        return trimmed.isEmpty() ? List.of() : Arrays.stream(trimmed.split("\\s*,\\s*")).toList();
                    }
                    throw new ConfigException(name, value, "expected a comma-separated list");
                case CLASS:
                    if (value instanceof Class<?>) {
                        return value;
                    }
                    if (trimmed != null) {
                        return Class.forName(trimmed, true, classLoader());
                    }
                    throw new ConfigException(name, value, "expected a class or a class name");
                default:
                    throw new IllegalStateException("Unhandled type " + type);
            }
        } catch (NumberFormatException e) {
            throw new ConfigException(name, value, "not a number of type " + type.name().toLowerCase(Locale.ROOT));
        } catch (ClassNotFoundException e) {
            throw new ConfigException(name, value, "class not found");
        }
    }

    private static ClassLoader classLoader() {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        return cl != null ? cl : ConfigDef.class.getClassLoader();
    }

    /** A number at least {@code min}. */
    public static Validator atLeast(long min) {
        return (name, value) -> {
            if (value != null && ((Number) value).longValue() < min) {
                throw new ConfigException(name, value, "must be at least " + min);
            }
        };
    }

    /** A number between {@code min} and {@code max}, inclusive. */
    public static Validator between(long min, long max) {
        return (name, value) -> {
            long v = ((Number) value).longValue();
            if (v < min || v > max) {
                throw new ConfigException(name, value, "must be between " + min + " and " + max);
            }
        };
    }

    /** A string among {@code allowed} (compared ignoring case). */
    public static Validator in(String... allowed) {
        List<String> list = new ArrayList<>(Arrays.asList(allowed));
        return (name, value) -> {
            if (value == null || list.stream().noneMatch(a -> a.equalsIgnoreCase((String) value))) {
                throw new ConfigException(name, value, "must be one of " + list);
            }
        };
    }

    /** A non-empty list of non-empty strings. */
    public static Validator nonEmptyList() {
        return (name, value) -> {
            List<?> list = (List<?>) value;
            if (list == null || list.isEmpty() || list.stream().anyMatch(s -> s.toString().isBlank())) {
                throw new ConfigException(name, value, "must be a non-empty list");
            }
        };
    }
}
