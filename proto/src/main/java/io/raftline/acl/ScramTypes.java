package io.raftline.acl;

import io.raftline.common.sasl.ScramCredential;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.protocol.acl.ScramMechanismType;
import io.raftline.protocol.metadata.ScramCredentialRecord;
import java.util.Optional;

/** Between the wire's {@link ScramMechanismType} and records and the SCRAM code's {@link ScramMechanism}. */
public final class ScramTypes {

    private ScramTypes() {
    }

    public static Optional<ScramMechanism> mechanism(ScramMechanismType type) {
        return switch (type) {
            case SCRAM_SHA_256 -> Optional.of(ScramMechanism.SCRAM_SHA_256);
            case SCRAM_SHA_512 -> Optional.of(ScramMechanism.SCRAM_SHA_512);
            default -> Optional.empty();
        };
    }

    public static ScramMechanismType type(ScramMechanism mechanism) {
        return mechanism == ScramMechanism.SCRAM_SHA_256 ? ScramMechanismType.SCRAM_SHA_256 : ScramMechanismType.SCRAM_SHA_512;
    }

    public static ScramCredential credential(ScramCredentialRecord r) {
        return new ScramCredential(mechanism(r.getMechanism()).orElseThrow(), r.getSalt().toByteArray(),
            r.getStoredKey().toByteArray(), r.getServerKey().toByteArray(), r.getIterations());
    }
}
