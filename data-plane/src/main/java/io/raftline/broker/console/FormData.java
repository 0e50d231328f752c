package io.raftline.broker.console;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fields of a query string or an {@code application/x-www-form-urlencoded} body, with typed getters that refuse
 * bad input with a 400 naming the field. Pure.
 */
public final class FormData {

    private final Map<String, String> fields;

    private FormData(Map<String, String> fields) {
        this.fields = fields;
    }

    /** Parses {@code a=1&b=x%20y}; null or empty is no field. A field given twice is refused. */
    public static FormData parse(String encoded) {
        Map<String, String> out = new LinkedHashMap<>();
        if (encoded != null && !encoded.isEmpty()) {
            for (String pair : encoded.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name;
                String value;
                try {
                    name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                    value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                } catch (IllegalArgumentException e) {
                    throw new ConsoleException(400, "malformed parameter '" + pair + "'");
                }
                if (out.put(name, value) != null) {
                    throw new ConsoleException(400, "parameter '" + name + "' given more than once");
                }
            }
        }
        return new FormData(out);
    }

    /** The fields other than {@code name}, as {@code k=v, ...} in name order (for the log). */
    public String without(String name) {
        return new java.util.TreeMap<>(fields).entrySet().stream().filter(e -> !e.getKey().equals(name))
            .map(e -> e.getKey() + "=" + e.getValue()).collect(java.util.stream.Collectors.joining(", "));
    }

    /** The value, or null when absent or empty. */
    public String optional(String name) {
        String v = fields.get(name);
        return v == null || v.isEmpty() ? null : v;
    }

    public String required(String name) {
        String v = optional(name);
        if (v == null) {
            throw new ConsoleException(400, "missing parameter '" + name + "'");
        }
        return v;
    }

    /** The value as a long in [min, max], {@code def} when absent. */
    public Long longIn(String name, long min, long max, Long def) {
        String v = optional(name);
        if (v == null) {
            return def;
        }
        long parsed;
        try {
            parsed = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new ConsoleException(400, "invalid " + name + " '" + v + "': not an integer");
        }
        if (parsed < min || parsed > max) {
            throw new ConsoleException(400, "invalid " + name + " '" + v + "': must be from " + min + " to " + max);
        }
        return parsed;
    }

    /** The value, which must be one of {@code allowed}; {@code def} when absent. */
    public String oneOf(String name, String def, String... allowed) {
        String v = optional(name);
        if (v == null) {
            return def;
        }
        for (String a : allowed) {
            if (a.equals(v)) {
                return v;
            }
        }
        throw new ConsoleException(400, "invalid " + name + " '" + v + "': must be one of " + String.join(", ", allowed));
    }
}
