package io.raftline.broker.config;

import io.raftline.common.config.ConfigDef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders the distribution's {@code config/server.properties}: every key, commented, with its default. The
 * committed file is this output with a few keys set for a single local node; a test checks that every key
 * appears in it.
 */
public final class ServerPropertiesDoc {

    /** Keys given a value in the shipped file (so it starts a single local node as it is). */
    static final Map<String, String> SHIPPED_VALUES = new LinkedHashMap<>();

    static {
        SHIPPED_VALUES.put(ServerConfig.NODE_ID, "1");
        SHIPPED_VALUES.put(ServerConfig.PROCESS_ROLES, "broker,controller");
        SHIPPED_VALUES.put(ServerConfig.LOG_DIRS, "/tmp/raftline-logs");
        SHIPPED_VALUES.put(ServerConfig.METADATA_DIR, "/tmp/raftline-metadata");
        SHIPPED_VALUES.put(ServerConfig.QUORUM_VOTERS, "1@localhost:9093");
    }

    private ServerPropertiesDoc() {
    }

    public static void main(String[] args) {
        System.out.print(render());
    }

    public static String render() {
        StringBuilder out = new StringBuilder();
        out.append("# Raftline node configuration. Every key a node knows is listed here with its default;\n")
            .append("# a line that starts with '#' keeps the default. An unknown key or a bad value stops the node\n")
            .append("# at start with one line naming the key. Kafka's key names and defaults wherever the concept\n")
            .append("# is the same.\n");
        String group = null;
        List<ConfigDef.Key> keys = new ArrayList<>(ServerConfig.DEF.keys().values());
        for (ConfigDef.Key key : keys) {
            if (!key.group().equals(group)) {
                group = key.group();
                out.append("\n############################# ").append(group).append(" #############################\n");
            }
            out.append('\n');
            for (String line : wrap(key.doc(), 100)) {
                out.append("# ").append(line).append('\n');
            }
            String def = key.required() ? "(required)" : ConfigDef.render(key.defaultValue());
            if (SHIPPED_VALUES.containsKey(key.name())) {
                if (!key.required()) {
                    out.append("# Default: ").append(def.isEmpty() ? "(none)" : def).append('\n');
                }
                out.append(key.name()).append('=').append(SHIPPED_VALUES.get(key.name())).append('\n');
            } else {
                out.append('#').append(key.name()).append('=').append(def).append('\n');
            }
        }
        return out.toString();
    }

    private static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + word.length() + 1 > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }
}
