package io.raftline.client.admin;

import com.google.protobuf.ByteString;
import io.raftline.acl.ScramTypes;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.protocol.controller.AlterUserScramCredentialsRequest.Deletion;
import io.raftline.protocol.controller.AlterUserScramCredentialsRequest.Upsertion;
import java.security.SecureRandom;

/** The items of {@link Admin#alterUserScramCredentials}: the password is salted and hashed here, never sent. */
public final class ScramCredentials {

    /** Kafka's default (kafka-configs' SCRAM iterations). */
    public static final int DEFAULT_ITERATIONS = 4096;
    private static final SecureRandom RANDOM = new SecureRandom();

    private ScramCredentials() {
    }

    /** A credential for {@code name} with a fresh 32-byte random salt: Hi(password, salt, iterations) is what is sent. */
    public static Upsertion upsertion(String name, ScramMechanism mechanism, String password, int iterations) {
        byte[] salt = new byte[32];
        RANDOM.nextBytes(salt);
        return Upsertion.newBuilder().setName(name).setMechanism(ScramTypes.type(mechanism)).setIterations(iterations)
            .setSalt(ByteString.copyFrom(salt))
            .setSaltedPassword(ByteString.copyFrom(mechanism.saltedPassword(password, salt, iterations))).build();
    }

    public static Deletion deletion(String name, ScramMechanism mechanism) {
        return Deletion.newBuilder().setName(name).setMechanism(ScramTypes.type(mechanism)).build();
    }
}
