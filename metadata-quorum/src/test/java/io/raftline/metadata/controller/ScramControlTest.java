package io.raftline.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.raftline.acl.ScramTypes;
import io.raftline.common.sasl.ScramClient;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.common.sasl.ScramServer;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.acl.ScramMechanismType;
import io.raftline.protocol.controller.AlterUserScramCredentialsRequest;
import io.raftline.protocol.controller.AlterUserScramCredentialsRequest.Deletion;
import io.raftline.protocol.controller.AlterUserScramCredentialsRequest.Upsertion;
import io.raftline.protocol.controller.AlterUserScramCredentialsResponse;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ScramControlTest {

    private static final ScramMechanism M = ScramMechanism.SCRAM_SHA_512;
    private static final byte[] SALT = "0123456789abcdef".getBytes();

    private static Upsertion upsert(String name, String password) {
        return Upsertion.newBuilder().setName(name).setMechanism(ScramMechanismType.SCRAM_SHA_512).setIterations(4096)
            .setSalt(ByteString.copyFrom(SALT)).setSaltedPassword(ByteString.copyFrom(M.saltedPassword(password, SALT, 4096)))
            .build();
    }

    private static Deletion delete(String name) {
        return Deletion.newBuilder().setName(name).setMechanism(ScramMechanismType.SCRAM_SHA_512).build();
    }

    private static MetadataImage applied(MetadataImage image, ControllerResult<?> result) {
        return MetadataDelta.replayAll(image, image.index() + 1, result.records()).image();
    }

    private static MetadataImage withAlice() {
        return applied(MetadataImage.EMPTY, ScramControl.alter(MetadataImage.EMPTY,
            AlterUserScramCredentialsRequest.newBuilder().addUpsertions(upsert("alice", "pw")).build()));
    }

    /** Whether {@code password} logs {@code name} in against the image's credentials, through a full SCRAM exchange. */
    private static boolean logsIn(MetadataImage image, String name, String password) {
        ScramServer server = new ScramServer(M, n -> image.scramUsers().get(n, ScramMechanismType.SCRAM_SHA_512)
            .map(ScramTypes::credential));
        ScramClient client = new ScramClient(M, name, password);
        try {
            client.verify(server.evaluate(client.finalMessage(server.evaluate(client.firstMessage()))));
            return true;
        } catch (io.raftline.common.sasl.ScramException e) {
            return false;
        }
    }

    @Test
    void anAddedUserLogsInWithItsPasswordAndTheImageKeepsNoPassword() {
        MetadataImage image = withAlice();
        assertThat(logsIn(image, "alice", "pw")).isTrue();
        assertThat(logsIn(image, "alice", "other")).isFalse();
        var record = image.scramUsers().get("alice", ScramMechanismType.SCRAM_SHA_512).orElseThrow();
        assertThat(record.getStoredKey().size()).isEqualTo(64);
        assertThat(record.toByteString().toStringUtf8()).doesNotContain("pw");
        // snapshots keep it
        MetadataImage rebuilt = MetadataDelta.replayAll(MetadataImage.EMPTY, image.index(), image.toRecords()).image();
        assertThat(rebuilt.scramUsers()).isEqualTo(image.scramUsers());
    }

    @Test
    void aNewPasswordReplacesTheOldAndRemovalEndsIt() {
        MetadataImage image = withAlice();
        image = applied(image, ScramControl.alter(image,
            AlterUserScramCredentialsRequest.newBuilder().addUpsertions(upsert("alice", "pw2")).build()));
        assertThat(logsIn(image, "alice", "pw")).isFalse();
        assertThat(logsIn(image, "alice", "pw2")).isTrue();
        ControllerResult<AlterUserScramCredentialsResponse> removal = ScramControl.alter(image,
            AlterUserScramCredentialsRequest.newBuilder().addDeletions(delete("alice")).build());
        image = applied(image, removal);
        assertThat(image.scramUsers().isEmpty()).isTrue();
        assertThat(logsIn(image, "alice", "pw2")).isFalse();
    }

    static Stream<Arguments> refused() {
        Upsertion good = upsert("bob", "pw");
        return Stream.of(
            Arguments.of("removing an unknown user", AlterUserScramCredentialsRequest.newBuilder()
                .addDeletions(delete("carol")), ErrorCode.RESOURCE_NOT_FOUND, "'carol' has no SCRAM-SHA-512"),
            Arguments.of("too few iterations", AlterUserScramCredentialsRequest.newBuilder()
                .addUpsertions(good.toBuilder().setIterations(1000)), ErrorCode.INVALID_REQUEST, "iterations"),
            Arguments.of("short salt", AlterUserScramCredentialsRequest.newBuilder()
                .addUpsertions(good.toBuilder().setSalt(ByteString.copyFromUtf8("abc"))), ErrorCode.INVALID_REQUEST, "salt"),
            Arguments.of("salted password of the wrong length", AlterUserScramCredentialsRequest.newBuilder()
                .addUpsertions(good.toBuilder().setSaltedPassword(ByteString.copyFrom(new byte[32]))),
                ErrorCode.INVALID_REQUEST, "64 bytes"),
            Arguments.of("no mechanism", AlterUserScramCredentialsRequest.newBuilder()
                .addUpsertions(good.toBuilder().setMechanism(ScramMechanismType.SCRAM_MECHANISM_UNSPECIFIED)),
                ErrorCode.UNSUPPORTED_SASL_MECHANISM, "unknown SCRAM mechanism"),
            Arguments.of("empty name", AlterUserScramCredentialsRequest.newBuilder()
                .addUpsertions(good.toBuilder().setName("")), ErrorCode.INVALID_REQUEST, "invalid user name"),
            Arguments.of("control character", AlterUserScramCredentialsRequest.newBuilder()
                .addUpsertions(good.toBuilder().setName("a\nb")), ErrorCode.INVALID_REQUEST, "invalid user name"),
            Arguments.of("too long", AlterUserScramCredentialsRequest.newBuilder()
                .addUpsertions(good.toBuilder().setName("x".repeat(256))), ErrorCode.INVALID_REQUEST, "invalid user name"),
            Arguments.of("named twice", AlterUserScramCredentialsRequest.newBuilder()
                .addUpsertions(good).addUpsertions(good), ErrorCode.INVALID_REQUEST, "named twice"),
            Arguments.of("added and removed at once", AlterUserScramCredentialsRequest.newBuilder()
                .addDeletions(delete("alice")).addUpsertions(upsert("alice", "x")), ErrorCode.INVALID_REQUEST, "named twice"),
            Arguments.of("one bad item among good ones", AlterUserScramCredentialsRequest.newBuilder()
                .addUpsertions(good).addUpsertions(upsert("dave", "pw").toBuilder().setIterations(99999)),
                ErrorCode.INVALID_REQUEST, "'dave'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void refusedRequestsWriteNothing(String name, AlterUserScramCredentialsRequest.Builder request, ErrorCode code,
                                     String message) {
        MetadataImage image = withAlice();
        ControllerResult<AlterUserScramCredentialsResponse> r = ScramControl.alter(image, request.build());
        assertThat(r.records()).isEmpty();
        AlterUserScramCredentialsResponse response = r.response().apply(image);
        assertThat(response.getError().getCode()).isEqualTo(code);
        assertThat(response.getError().getMessage()).contains(message);
        assertThat(Optional.of(image.scramUsers().all().keySet())).contains(java.util.Set.of("alice"));
    }
}
