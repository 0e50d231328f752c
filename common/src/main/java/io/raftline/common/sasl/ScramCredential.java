package io.raftline.common.sasl;

import java.util.Arrays;
import java.util.Optional;

/**
 * What a server keeps of a SCRAM password (RFC 5802 section 3): the salt, the iteration count, StoredKey =
 * H(HMAC(SaltedPassword, "Client Key")) and ServerKey = HMAC(SaltedPassword, "Server Key"). Neither key lets anyone
 * log in: a client proves it knows ClientKey, which only the password gives.
 */
public record ScramCredential(ScramMechanism mechanism, byte[] salt, byte[] storedKey, byte[] serverKey, int iterations) {

    /** The credential a salted password gives (what an admin client sends, as Kafka's AlterUserScramCredentials). */
    public static ScramCredential fromSaltedPassword(ScramMechanism mechanism, byte[] salt, byte[] saltedPassword,
                                                     int iterations) {
        return new ScramCredential(mechanism, salt.clone(), mechanism.hash(mechanism.clientKey(saltedPassword)),
            mechanism.serverKey(saltedPassword), iterations);
    }

    public static ScramCredential fromPassword(ScramMechanism mechanism, String password, byte[] salt, int iterations) {
        return fromSaltedPassword(mechanism, salt, mechanism.saltedPassword(password, salt, iterations), iterations);
    }

    /** Why a credential to be stored is unacceptable, if it is: the iteration bounds, a salt, key lengths. */
    public static Optional<String> invalid(ScramMechanism mechanism, byte[] salt, byte[] saltedPassword, int iterations) {
        if (iterations < ScramMechanism.MIN_ITERATIONS || iterations > ScramMechanism.MAX_ITERATIONS) {
            return Optional.of("iterations must be between " + ScramMechanism.MIN_ITERATIONS + " and "
                + ScramMechanism.MAX_ITERATIONS + ", not " + iterations);
        }
        if (salt.length < 8) {
            return Optional.of("the salt must have at least 8 bytes, not " + salt.length);
        }
        if (saltedPassword.length != mechanism.length()) {
            return Optional.of("a " + mechanism.mechanismName() + " salted password has " + mechanism.length()
                + " bytes, not " + saltedPassword.length);
        }
        return Optional.empty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScramCredential c && mechanism == c.mechanism && iterations == c.iterations
            && Arrays.equals(salt, c.salt) && Arrays.equals(storedKey, c.storedKey) && Arrays.equals(serverKey, c.serverKey);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * mechanism.hashCode() + iterations) + Arrays.hashCode(storedKey);
    }

    @Override
    public String toString() {
        return "ScramCredential{" + mechanism.mechanismName() + ", iterations=" + iterations + "}";
    }
}
