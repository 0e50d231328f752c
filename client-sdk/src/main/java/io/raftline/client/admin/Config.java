package io.raftline.client.admin;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/** The configs of one resource, by name. */
public final class Config {

    private final Map<String, ConfigEntry> entries = new LinkedHashMap<>();

    /** Holds these entries. */
    public Config(Collection<ConfigEntry> entries) {
        for (ConfigEntry e : entries) {
            this.entries.put(e.name(), e);
        }
    }

    /** Every entry, in the broker's order. */
    public Collection<ConfigEntry> entries() {
        return entries.values();
    }

    /** The entry for {@code name}, or null. */
    public ConfigEntry get(String name) {
        return entries.get(name);
    }

    @Override
    public String toString() {
        return "Config(" + entries.values() + ")";
    }
}
