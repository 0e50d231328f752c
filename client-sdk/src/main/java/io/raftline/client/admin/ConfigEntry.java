package io.raftline.client.admin;

/**
 * One config value of a resource.
 *
 * @param name     the key, e.g. {@code retention.ms}
 * @param value    the value in effect, or null
 * @param source   where it comes from: {@code default}, {@code broker} or {@code topic}
 * @param readOnly whether it can be altered
 */
public record ConfigEntry(String name, String value, String source, boolean readOnly) {

    /** An entry to set (for {@link AlterConfigOp}). */
    public ConfigEntry(String name, String value) {
        this(name, value, "topic", false);
    }
}
