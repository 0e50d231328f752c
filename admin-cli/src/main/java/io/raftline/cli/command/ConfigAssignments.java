package io.raftline.cli.command;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code --add-config K=V[,K=V...]} as kafka-configs reads it: pairs separated by commas, except commas inside
 * square brackets, so {@code cleanup.policy=[compact,delete]} is one key whose value is {@code compact,delete} (the
 * brackets dropped). The key ends at the first {@code =}; the value may itself hold {@code =}.
 */
public final class ConfigAssignments {

    private ConfigAssignments() {
    }

    /** The pairs in order; throws IllegalArgumentException saying what does not parse. */
    public static Map<String, String> parse(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : ',';
            if (c == '[') {
                depth++;
            } else if (c == ']') {
                if (--depth < 0) {
                    throw new IllegalArgumentException("--add-config: a ']' without its '[' in '" + text + "'");
                }
            } else if (c == ',' && depth == 0) {
                pair(text.substring(start, Math.min(i, text.length())), text, out);
                start = i + 1;
            }
        }
        if (depth != 0) {
            throw new IllegalArgumentException("--add-config: a '[' without its ']' in '" + text + "'");
        }
        return out;
    }

    private static void pair(String item, String text, Map<String, String> out) {
        int eq = item.indexOf('=');
        if (eq <= 0 || item.substring(0, eq).isBlank()) {
            throw new IllegalArgumentException("--add-config: '" + item + "' in '" + text + "' is not K=V");
        }
        String key = item.substring(0, eq).trim();
        String value = item.substring(eq + 1).trim();
        if (value.length() >= 2 && value.charAt(0) == '[' && value.charAt(value.length() - 1) == ']') {
            value = value.substring(1, value.length() - 1);
        }
        if (out.put(key, value) != null) {
            throw new IllegalArgumentException("--add-config: '" + key + "' is given twice in '" + text + "'");
        }
    }
}
