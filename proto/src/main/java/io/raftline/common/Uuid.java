package io.raftline.common;

import java.util.Arrays;
import java.util.Base64;
import java.util.random.RandomGenerator;

/**
 * A 128-bit id (topic ids, cluster ids), printed Kafka-style as 22 characters of URL-safe base64 without
 * padding. Immutable; {@link #bytes()} returns a copy.
 */
public final class Uuid implements Comparable<Uuid> {

    public static final int SIZE_BYTES = 16;
    /** All zeros: "no id". */
    public static final Uuid ZERO = new Uuid(new byte[SIZE_BYTES]);

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final byte[] bytes;

    private Uuid(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * A fresh id from the given (injected, seeded in tests) randomness; never {@link #ZERO}, and never one whose
     * text starts with '-' (a first byte of 0xF8..0xFB), which a command line would read as an option: those are
     * drawn again, as Kafka's are. Any {@link java.util.Random} is a {@link RandomGenerator}.
     */
    public static Uuid random(RandomGenerator random) {
        byte[] b = new byte[SIZE_BYTES];
        do {
            random.nextBytes(b);
        } while (Arrays.equals(b, ZERO.bytes) || (b[0] & 0xFC) == 0xF8);
        return new Uuid(b);
    }

    /** The id held in 16 bytes; anything else is refused. */
    public static Uuid fromBytes(byte[] b) {
        if (b.length != SIZE_BYTES) {
            throw new IllegalArgumentException("a uuid is " + SIZE_BYTES + " bytes, got " + b.length);
        }
        return new Uuid(b.clone());
    }

    /** Parses the 22-character form printed by {@link #toString()}. */
    public static Uuid fromString(String s) {
        if (s == null || s.length() != 22) {
            throw new IllegalArgumentException("not a 22-character uuid: '" + s + "'");
        }
        byte[] b;
        try {
            b = DECODER.decode(s);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a base64 uuid: '" + s + "'", e);
        }
        return fromBytes(b);
    }

    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public String toString() {
        return ENCODER.encodeToString(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Uuid other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public int compareTo(Uuid o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }
}
