package io.raftline.broker.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The definition of a set of config keys: for each its type, default, check and doc. Parsing is strict: an
 * unknown key or a value that does not parse or fails its check is a {@link ConfigException} whose message
 * names the key, so a node refuses to start with one clear line.
 */
public final class ConfigDef {

    /** How a value is written in a properties file and what it becomes. */
    public enum Type {
        INT, LONG, BOOLEAN, STRING, LIST, HOST_PORT
    }

    /** One key. {@code defaultValue} null with {@code required} false means "no value" (an optional key). */
    public record Key(String name, Type type, Object defaultValue, boolean required, Check check, String doc,
                      String group) {
    }

    /** A check on a parsed value; returns null when fine, else what is wrong ("must be at least 1"). */
    @FunctionalInterface
    public interface Check {
        String problem(Object value);
    }

    private final Map<String, Key> keys = new LinkedHashMap<>();

    public ConfigDef define(String name, Type type, Object defaultValue, Check check, String group, String doc) {
        return add(new Key(name, type, defaultValue, false, check, doc, group));
    }

    public ConfigDef defineRequired(String name, Type type, Check check, String group, String doc) {
        return add(new Key(name, type, null, true, check, doc, group));
    }

    private ConfigDef add(Key key) {
        if (keys.putIfAbsent(key.name(), key) != null) {
            throw new IllegalStateException("config key defined twice: " + key.name());
        }
        return this;
    }

    public Map<String, Key> keys() {
        return Collections.unmodifiableMap(keys);
    }

    /**
     * Parses raw string values: every key of {@code raw} must be defined, every required key present, every value
     * valid. Returns the parsed values of every defined key (defaults filled in; optional keys without a value
     * map to null).
     */
    public Map<String, Object> parse(Map<String, String> raw) {
        for (String name : raw.keySet()) {
            if (!keys.containsKey(name)) {
                throw new ConfigException("unknown config key '" + name + "'");
            }
        }
        Map<String, Object> parsed = new LinkedHashMap<>();
        for (Key key : keys.values()) {
            String text = raw.get(key.name());
            Object value;
            if (text == null) {
                if (key.required()) {
                    throw new ConfigException("missing required config key '" + key.name() + "'");
                }
                value = key.defaultValue();
            } else {
                value = parseValue(key, text.trim());
            }
            if (value != null && key.check() != null) {
                String problem = key.check().problem(value);
                if (problem != null) {
                    throw new ConfigException("invalid value '" + text + "' for config key '" + key.name() + "': " + problem);
                }
            }
            parsed.put(key.name(), value);
        }
        return parsed;
    }

    private static Object parseValue(Key key, String text) {
        try {
            return switch (key.type()) {
                case INT -> Integer.parseInt(text);
                case LONG -> Long.parseLong(text);
                case BOOLEAN -> parseBoolean(text);
                case STRING -> text;
                case LIST -> parseList(text);
                case HOST_PORT -> HostPort.parse(text);
            };
        } catch (IllegalArgumentException e) {
            String why = e instanceof NumberFormatException ? "expected " + describe(key.type()) : e.getMessage();
            throw new ConfigException("invalid value '" + text + "' for config key '" + key.name() + "': " + why);
        }
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
        for (String item : text.split(",")) {
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
            case INT -> "an integer";
            case LONG -> "a long integer";
            default -> type.name().toLowerCase(Locale.ROOT);
        };
    }

    /** Renders a default the way a properties file would hold it ("" for none). */
    public static String render(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof List<?> list) {
            return String.join(",", list.stream().map(String::valueOf).toList());
        }
        return String.valueOf(value);
    }

    // Checks used by the definitions.

    public static Check atLeast(long min) {
        return v -> ((Number) v).longValue() >= min ? null : "must be at least " + min;
    }

    public static Check between(long min, long max) {
        return v -> {
            long n = ((Number) v).longValue();
            return n >= min && n <= max ? null : "must be between " + min + " and " + max;
        };
    }

    public static Check oneOf(String... allowed) {
        List<String> options = Arrays.asList(allowed);
        return v -> options.contains(v) ? null : "must be one of " + String.join(", ", options);
    }

    public static Check eachOf(String... allowed) {
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

    public static Check nonEmptyList() {
        return v -> ((List<?>) v).isEmpty() ? "must not be empty" : null;
    }

    public static Check all(Check... checks) {
        return v -> {
            for (Check c : checks) {
                String problem = c.problem(v);
                if (problem != null) {
                    return problem;
                }
            }
            return null;
        };
    }

    public static <T> Check parses(Function<String, T> parser) {
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
