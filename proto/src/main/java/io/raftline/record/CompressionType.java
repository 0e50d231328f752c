package io.raftline.record;

import java.util.Locale;

/**
 * The codec of a batch's records section, stored in bits 0-2 of the batch attributes. The ids are part of the
 * on-disk and wire format: never renumber.
 */
public enum CompressionType {
    NONE(0, "none"),
    GZIP(1, "gzip"),
    SNAPPY(2, "snappy"),
    LZ4(3, "lz4"),
    ZSTD(4, "zstd");

    private static final CompressionType[] BY_ID = values();

    private final int id;
    private final String configName;

    CompressionType(int id, String configName) {
        this.id = id;
        this.configName = configName;
    }

    /** The value stored in the attributes' codec bits. */
    public int id() {
        return id;
    }

    /** Kafka's name for the codec, as used in {@code compression.type}. */
    public String configName() {
        return configName;
    }

    /**
     * The codec with this attribute id.
     *
     * @throws IllegalArgumentException for an id no codec has (the validator maps that to UNSUPPORTED_FORMAT)
     */
    public static CompressionType forId(int id) {
        if (id < 0 || id >= BY_ID.length) {
            throw new IllegalArgumentException("unknown compression codec id " + id + " (known: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)");
        }
        return BY_ID[id];
    }

    /**
     * The codec with Kafka's name ("none", "gzip", "snappy", "lz4", "zstd"; case-insensitive).
     *
     * @throws IllegalArgumentException for any other name
     */
    public static CompressionType forName(String name) {
        if (name != null) {
            String lower = name.trim().toLowerCase(Locale.ROOT);
            for (CompressionType type : BY_ID) {
                if (type.configName.equals(lower)) {
                    return type;
                }
            }
        }
        throw new IllegalArgumentException("unknown compression type '" + name + "': expected one of none, gzip, snappy, lz4, zstd");
    }
}
