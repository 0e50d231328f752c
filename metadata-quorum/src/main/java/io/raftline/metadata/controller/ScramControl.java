package io.raftline.metadata.controller;

import com.google.protobuf.ByteString;
import io.raftline.acl.ScramTypes;
import io.raftline.common.sasl.ScramCredential;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.acl.ScramMechanismType;
import io.raftline.protocol.controller.AlterUserScramCredentialsRequest;
import io.raftline.protocol.controller.AlterUserScramCredentialsResponse;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.ScramCredentialRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * SCRAM credential changes (KIP-554's AlterUserScramCredentials): each upsertion's salted password becomes StoredKey and
 * ServerKey in a {@link ScramCredentialRecord}; each deletion a removal. All or nothing.
 */
final class ScramControl {

    /** Kafka's bound on a user name's length is none; ours keeps records and principals readable. */
    static final int MAX_NAME_LENGTH = 255;

    private ScramControl() {
    }

    static ControllerResult<AlterUserScramCredentialsResponse> alter(MetadataImage image,
                                                                     AlterUserScramCredentialsRequest request) {
        List<MetadataRecord> records = new ArrayList<>();
        Set<String> named = new HashSet<>();
        for (AlterUserScramCredentialsRequest.Deletion d : request.getDeletionsList()) {
            Optional<ErrorResult> bad = common(d.getName(), d.getMechanism(), named);
            if (bad.isPresent()) {
                return refuse(bad.get());
            }
            if (!image.scramUsers().has(d.getName(), d.getMechanism())) {
                return refuse(new ErrorResult(ErrorCode.RESOURCE_NOT_FOUND, "user '" + d.getName() + "' has no "
                    + ScramTypes.mechanism(d.getMechanism()).orElseThrow().mechanismName() + " credential"));
            }
            records.add(wrap(ScramCredentialRecord.newBuilder().setName(d.getName()).setMechanism(d.getMechanism())
                .setRemoved(true)));
        }
        for (AlterUserScramCredentialsRequest.Upsertion u : request.getUpsertionsList()) {
            Optional<ErrorResult> bad = common(u.getName(), u.getMechanism(), named);
            if (bad.isPresent()) {
                return refuse(bad.get());
            }
            ScramMechanism mechanism = ScramTypes.mechanism(u.getMechanism()).orElseThrow();
            byte[] salt = u.getSalt().toByteArray();
            byte[] salted = u.getSaltedPassword().toByteArray();
            Optional<String> why = ScramCredential.invalid(mechanism, salt, salted, u.getIterations());
            if (why.isPresent()) {
                return refuse(new ErrorResult(ErrorCode.INVALID_REQUEST, "user '" + u.getName() + "': " + why.get()));
            }
            ScramCredential c = ScramCredential.fromSaltedPassword(mechanism, salt, salted, u.getIterations());
            records.add(wrap(ScramCredentialRecord.newBuilder().setName(u.getName()).setMechanism(u.getMechanism())
                .setSalt(ByteString.copyFrom(c.salt())).setStoredKey(ByteString.copyFrom(c.storedKey()))
                .setServerKey(ByteString.copyFrom(c.serverKey())).setIterations(c.iterations())));
        }
        return ControllerResult.of(records, AlterUserScramCredentialsResponse.newBuilder().setError(Errors.NONE).build());
    }

    private record ErrorResult(ErrorCode code, String message) {
    }

    private static Optional<ErrorResult> common(String name, ScramMechanismType type, Set<String> named) {
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH || name.chars().anyMatch(Character::isISOControl)) {
            return Optional.of(new ErrorResult(ErrorCode.INVALID_REQUEST, "invalid user name '" + name + "': 1 to "
                + MAX_NAME_LENGTH + " characters, no control characters"));
        }
        if (ScramTypes.mechanism(type).isEmpty()) {
            return Optional.of(new ErrorResult(ErrorCode.UNSUPPORTED_SASL_MECHANISM, "user '" + name
                + "': unknown SCRAM mechanism " + type + " (SCRAM-SHA-512 or SCRAM-SHA-256)"));
        }
        if (!named.add(name + "\u0000" + type)) {
            return Optional.of(new ErrorResult(ErrorCode.INVALID_REQUEST, "user '" + name + "' is named twice for "
                + ScramTypes.mechanism(type).orElseThrow().mechanismName()));
        }
        return Optional.empty();
    }

    private static ControllerResult<AlterUserScramCredentialsResponse> refuse(ErrorResult e) {
        return ControllerResult.answer(AlterUserScramCredentialsResponse.newBuilder()
            .setError(Errors.of(e.code(), e.message())).build());
    }

    private static MetadataRecord wrap(ScramCredentialRecord.Builder r) {
        return MetadataImage.wrap(MetadataRecord.newBuilder().setScramCredential(r));
    }
}
