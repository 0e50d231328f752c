package io.raftline.common.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The definition of a set of config keys (a node's, a producer's, a topic's): for each its type, default, validator,
 * doc and the group it is listed under. {@link #parse} turns a user's map into typed values once, at start: a value
 * that does not parse or fails its validator, or a missing required key, is a {@link ConfigException} whose message
 * names the key. What an unknown key does is the caller's choice ({@link UnknownKeys}): a server refuses it, a client
 * keeps it for its plugins as Kafka's clients do.
 *
 * <p>Values may be text (from a properties file, trimmed) or already typed (an Integer, a List, a Class, a
 * {@link HostPort}). Defaults are given in either form and parsed like values.
 */
public final class ConfigDef {

    /** How a value is written and what it becomes. */
    public enum Type {
        BOOLEAN, STRING, INT, LONG, DOUBLE, LIST, CLASS, HOST_PORT
    }

    /** What {@link #parse} does with a key that is not defined. */
    public enum UnknownKeys {
        /** Fail naming the key (servers: a typo must not go unnoticed). */
        REFUSE,
        /** Keep it among {@link Parsed#unknown()} (clients: it may be a serializer's or interceptor's own key). */
        KEEP
    }

    /** A check on a parsed, non-null value; returns null when it is fine, else what is wrong ("must be at least 1"). */
    @FunctionalInterface
    public interface Validator {
        String problem(Object value);
    }

    /**
     * One key. {@code defaultValue} null with {@code required} false means "no value" (an optional key, read as null).
     */
    public record Key(String name, Type type, Object defaultValue, boolean required, Validator validator, String doc,
                      String group) {
    }

    /** The outcome of {@link #parse}: every defined key's value (defaults filled in) and the unknown keys given. */
    public record Parsed(Map<String, Object> values, Set<String> unknown) {
    }

    private final Map<String, Key> keys = new LinkedHashMap<>();

    /** Defines an optional key listed under {@code group}; a null default means it has no value unless set. */
    public ConfigDef define(String name, Type type, Object defaultValue, Validator validator, String group, String doc) {
        Object parsedDefault = defaultValue == null ? null : parseValue(name, defaultValue, type);
        return add(new Key(name, type, parsedDefault, false, validator, doc, group));
    }

    /** Defines an optional key outside any group. */
    public ConfigDef define(String name, Type type, Object defaultValue, Validator validator, String doc) {
        return define(name, type, defaultValue, validator, "", doc);
    }

    /** Defines an optional key without a validator. */
    public ConfigDef define(String name, Type type, Object defaultValue, String doc) {
        return define(name, type, defaultValue, null, "", doc);
    }

    /** Defines a key that must be set. */
    public ConfigDef defineRequired(String name, Type type, Validator validator, String group, String doc) {
        return add(new Key(name, type, null, true, validator, doc, group));
    }

    /** Defines every key of {@code other} here as well (one definition shared by two config sets). */
    public ConfigDef defineAll(ConfigDef other) {
        other.keys().values().forEach(this::add);
        return this;
    }

    private ConfigDef add(Key key) {
        if (keys.putIfAbsent(key.name(), key) != null) {
            throw new IllegalStateException("config key defined twice: " + key.name());
        }
        return this;
    }

    /** The defined keys, in definition order. */
    public Map<String, Key> keys() {
        return Collections.unmodifiableMap(keys);
    }

    /** The defined key names, in definition order. */
    public Set<String> names() {
        return Collections.unmodifiableSet(keys.keySet());
    }

    /**
     * Parses {@code props} against the defined keys.
     *
     * @throws ConfigException for a key that is not a string, an unknown key under {@link UnknownKeys#REFUSE}, a
     *     missing required key, or a value of the wrong type or range
     */
    public Parsed parse(Map<?, ?> props, UnknownKeys unknownKeys) {
        Set<String> unknown = new LinkedHashSet<>();
        for (Object k : props.keySet()) {
            if (!(k instanceof String name)) {
                throw new ConfigException("config keys must be strings, got " + k);
            }
            if (!keys.containsKey(name)) {
                if (unknownKeys == UnknownKeys.REFUSE) {
                    throw new ConfigException("unknown config key '" + name + "'");
                }
                unknown.add(name);
            }
        }
        Map<String, Object> values = new LinkedHashMap<>();
        for (Key key : keys.values()) {
            Object raw = props.get(key.name());
            Object value;
            if (raw == null) {
                if (key.required()) {
                    throw new ConfigException("missing required config key '" + key.name() + "'");
                }
                value = key.defaultValue();
            } else {
                value = parseValue(key.name(), raw, key.type());
            }
            if (value != null && key.validator() != null) {
                String problem = key.validator().problem(value);
                if (problem != null) {
                    throw new ConfigException(key.name(), raw == null ? render(value) : raw, problem);
                }
            }
            values.put(key.name(), value);
        }
        return new Parsed(Collections.unmodifiableMap(values), Collections.unmodifiableSet(unknown));
    }

    /** Converts {@code value} (text or typed) to {@code type}, failing with a message that names {@code name}. */
    public static Object parseValue(String name, Object value, Type type) {
        String text = value instanceof String s ? s.trim() : null;
        try {
            Object parsed = text != null ? parseText(text, type) : typed(value, type);
            if (parsed == null) {
                throw new ConfigException(name, value, "expected " + describe(type));
            }
            return parsed;
        } catch (ConfigException e) {
            throw e;
        } catch (NumberFormatException e) {
            throw new ConfigException(name, value, "expected " + describe(type));
        } catch (ClassNotFoundException e) {
            throw new ConfigException(name, value, "class not found");
        } catch (IllegalArgumentException e) {
            throw new ConfigException(name, value, e.getMessage());
        }
    }

    private static Object parseText(String text, Type type) throws ClassNotFoundException {
        return switch (type) {
            case BOOLEAN -> parseBoolean(text);
            case STRING -> text;
            case INT -> Integer.parseInt(text);
            case LONG -> Long.parseLong(text);
            case DOUBLE -> Double.parseDouble(text);
            case LIST -> parseList(text);
            case CLASS -> Class.forName(text, true, classLoader());
            case HOST_PORT -> HostPort.parse(text);
        };
    }

    /** A value given as an object: the type's own Java type, or a number widened to it; null when it is neither. */
    private static Object typed(Object value, Type type) {
        return switch (type) {
            case BOOLEAN -> value instanceof Boolean ? value : null;
            case STRING -> null;
            case INT -> value instanceof Integer ? value : null;
            case LONG -> value instanceof Integer || value instanceof Long ? ((Number) value).longValue() : null;
            case DOUBLE -> value instanceof Number n ? n.doubleValue() : null;
            case LIST -> value instanceof List<?> l ? List.copyOf(l) : null;
            case CLASS -> value instanceof Class<?> ? value : null;
            case HOST_PORT -> value instanceof HostPort ? value : null;
        };
    }

    private static boolean parseBoolean(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("expected true or false");
        };
    }

    private static List<String> parseList(String text) {
        if (text.isEmpty()) {
            return List.of();
        }
        List<String> items = new ArrayList<>();
        for (String item : text.split(",", -1)) {
            String trimmed = item.trim();
            if (trimmed.isEmpty()) {
                throw new IllegalArgumentException("empty item in a comma-separated list");
            }
            items.add(trimmed);
        }
        return List.copyOf(items);
    }

    private static String describe(Type type) {
        return switch (type) {
            case BOOLEAN -> "true or false";
            case STRING -> "a string";
            case INT -> "an integer";
            case LONG -> "a long integer";
            case DOUBLE -> "a number";
            case LIST -> "a comma-separated list";
            case CLASS -> "a class or a class name";
            case HOST_PORT -> "HOST:PORT";
        };
    }

    private static ClassLoader classLoader() {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        return cl != null ? cl : ConfigDef.class.getClassLoader();
    }

    /** Renders a value the way a properties file would hold it ("" for none). */
    public static String render(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof List<?> list) {
            return String.join(",", list.stream().map(ConfigDef::render).toList());
        }
        if (value instanceof Class<?> c) {
            return c.getName();
        }
        return String.valueOf(value);
    }

    // Validators.

    /** A number at least {@code min}. */
    public static Validator atLeast(long min) {
        return v -> ((Number) v).longValue() >= min ? null : "must be at least " + min;
    }

    /** A number between {@code min} and {@code max}, inclusive. */
    public static Validator between(long min, long max) {
        return v -> {
            long n = ((Number) v).longValue();
            return n >= min && n <= max ? null : "must be between " + min + " and " + max;
        };
    }

    /** A floating-point number between {@code min} and {@code max}, inclusive. */
    public static Validator betweenDouble(double min, double max) {
        return v -> {
            double n = ((Number) v).doubleValue();
            return n >= min && n <= max ? null : "must be between " + min + " and " + max;
        };
    }

    /** A string among {@code allowed}, exactly. */
    public static Validator oneOf(String... allowed) {
        List<String> options = Arrays.asList(allowed);
        return v -> options.contains(v) ? null : "must be one of " + String.join(", ", options);
    }

    /** A string among {@code allowed}, ignoring case (as Kafka's clients compare their enum-like keys). */
    public static Validator oneOfIgnoringCase(String... allowed) {
        List<String> options = Arrays.asList(allowed);
        return v -> options.stream().anyMatch(o -> o.equalsIgnoreCase((String) v))
            ? null : "must be one of " + String.join(", ", options);
    }

    /** A list whose every item is among {@code allowed}. */
    public static Validator eachOf(String... allowed) {
        List<String> options = Arrays.asList(allowed);
        return v -> {
            for (Object item : (List<?>) v) {
                if (!options.contains(item)) {
                    return "'" + item + "' is not one of " + String.join(", ", options);
                }
            }
            return null;
        };
    }

    /** A list with at least one item. */
    public static Validator nonEmptyList() {
        return v -> ((List<?>) v).isEmpty() ? "must not be empty" : null;
    }

    /** A list whose every item is {@code host:port}. */
    public static Validator eachHostPort() {
        return v -> {
            for (Object item : (List<?>) v) {
                try {
                    HostPort.parse(String.valueOf(item));
                } catch (IllegalArgumentException e) {
                    return "'" + item + "': " + e.getMessage();
                }
            }
            return null;
        };
    }

    /** Every one of {@code validators}, the first problem wins. */
    public static Validator all(Validator... validators) {
        return v -> {
            for (Validator c : validators) {
                String problem = c.problem(v);
                if (problem != null) {
                    return problem;
                }
            }
            return null;
        };
    }

    /** A string that {@code parser} accepts; its {@link IllegalArgumentException}'s message is the problem. */
    public static <T> Validator parses(Function<String, T> parser) {
        return v -> {
            try {
                parser.apply((String) v);
                return null;
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        };
    }
}
