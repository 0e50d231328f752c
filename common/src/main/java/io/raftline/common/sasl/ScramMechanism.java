package io.raftline.common.sasl;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The SCRAM mechanisms (RFC 5802, RFC 7677) and their primitives: H, HMAC and Hi (PBKDF2 with one block), all from the
 * JDK. Iteration bounds are Kafka's (4096 to 16384).
 */
public enum ScramMechanism {
    SCRAM_SHA_256("SCRAM-SHA-256", "SHA-256", "HmacSHA256"),
    SCRAM_SHA_512("SCRAM-SHA-512", "SHA-512", "HmacSHA512");

    public static final int MIN_ITERATIONS = 4096;
    public static final int MAX_ITERATIONS = 16384;

    private final String mechanismName;
    private final String hash;
    private final String hmac;

    ScramMechanism(String mechanismName, String hash, String hmac) {
        this.mechanismName = mechanismName;
        this.hash = hash;
        this.hmac = hmac;
    }

    /** The SASL name: {@code SCRAM-SHA-512}. */
    public String mechanismName() {
        return mechanismName;
    }

    /** The mechanism a SASL name stands for (case as sent; SASL names are upper case). */
    public static Optional<ScramMechanism> forName(String name) {
        for (ScramMechanism m : values()) {
            if (m.mechanismName.equals(name == null ? null : name.toUpperCase(Locale.ROOT))) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    /** The hash's output length in bytes (also the length of a salted password and of each key). */
    public int length() {
        return this == SCRAM_SHA_256 ? 32 : 64;
    }

    public byte[] hash(byte[] data) {
        try {
            return MessageDigest.getInstance(hash).digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks " + hash, e);
        }
    }

    public byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance(hmac);
            mac.init(new SecretKeySpec(key, hmac));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks " + hmac, e);
        }
    }

    /** Hi(password, salt, i): the salted password. The password is taken as UTF-8 (Kafka does no SASLprep either). */
    public byte[] saltedPassword(String password, byte[] salt, int iterations) {
        try {
            Mac mac = Mac.getInstance(hmac);
            mac.init(new SecretKeySpec(password.getBytes(StandardCharsets.UTF_8), hmac));
            mac.update(salt);
            byte[] u = mac.doFinal(new byte[] {0, 0, 0, 1});
            byte[] result = u.clone();
            for (int i = 1; i < iterations; i++) {
                u = mac.doFinal(u);
                for (int j = 0; j < result.length; j++) {
                    result[j] ^= u[j];
                }
            }
            return result;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks " + hmac, e);
        } catch (IllegalArgumentException e) {
            // SecretKeySpec refuses an empty key
            throw new IllegalArgumentException("a SCRAM password must not be empty", e);
        }
    }

    public byte[] clientKey(byte[] saltedPassword) {
        return hmac(saltedPassword, "Client Key".getBytes(StandardCharsets.US_ASCII));
    }

    public byte[] serverKey(byte[] saltedPassword) {
        return hmac(saltedPassword, "Server Key".getBytes(StandardCharsets.US_ASCII));
    }

    static byte[] xor(byte[] a, byte[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("lengths differ: " + a.length + " and " + b.length);
        }
        byte[] out = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = (byte) (a[i] ^ b[i]);
        }
        return out;
    }
}
