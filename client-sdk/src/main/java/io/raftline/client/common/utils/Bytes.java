package io.raftline.client.common.utils;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A byte array with value semantics ({@code equals}, {@code hashCode}, ordering), usable as a map key, as Kafka's
 * {@code Bytes} is. It wraps the array given, without copying: do not change the array afterwards.
 */
public final class Bytes implements Comparable<Bytes> {

    private final byte[] bytes;
    private int hash;

    private Bytes(byte[] bytes) {
        this.bytes = bytes;
    }

    /** The array wrapped, or null for a null array. */
    public static Bytes wrap(byte[] bytes) {
        return bytes == null ? null : new Bytes(bytes);
    }

    /** The wrapped array itself. */
    public byte[] get() {
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytes other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = Arrays.hashCode(bytes);
            hash = h;
        }
        return h;
    }

    /** Unsigned lexicographic order, as Kafka's. */
    @Override
    public int compareTo(Bytes other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(bytes);
    }
}
