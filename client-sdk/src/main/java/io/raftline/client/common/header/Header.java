package io.raftline.client.common.header;

import java.util.Arrays;
import java.util.Objects;

/**
 * One record header: a string key and an opaque value (which may be null).
 *
 * @param key   the header key
 * @param value the header value, or null
 */
public record Header(String key, byte[] value) {

    /** Checks the key. */
    public Header {
        Objects.requireNonNull(key, "header key");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Header h && key.equals(h.key) && Arrays.equals(value, h.value);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Header(" + key + ", " + (value == null ? "null" : value.length + " bytes") + ")";
    }
}
