package io.raftline.common.sasl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ScramTest {

    private static final byte[] SALT = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static ScramServer server(ScramMechanism m, Map<String, ScramCredential> users, String serverNonce) {
        return new ScramServer(m, name -> Optional.ofNullable(users.get(name)), () -> serverNonce);
    }

    @Test
    void rfc7677ExampleExchangesExactlyTheseMessages() throws Exception {
        ScramCredential pencil = ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_256, "pencil", SALT, 4096);
        ScramServer server = server(ScramMechanism.SCRAM_SHA_256, Map.of("user", pencil), "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
        ScramClient client = new ScramClient(ScramMechanism.SCRAM_SHA_256, "user", "pencil", () -> "rOprNGfwEbeRWgbNEkqO");

        byte[] first = client.firstMessage();
        assertThat(text(first)).isEqualTo("n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        byte[] serverFirst = server.evaluate(first);
        assertThat(text(serverFirst)).isEqualTo(
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
        byte[] clientFinal = client.finalMessage(serverFirst);
        assertThat(text(clientFinal)).isEqualTo("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
        byte[] serverFinal = server.evaluate(clientFinal);
        assertThat(text(serverFinal)).isEqualTo("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
        client.verify(serverFinal);
        assertThat(server.complete()).isTrue();
        assertThat(server.username()).isEqualTo("user");
    }

    @Test
    void sha512RoundTripWithEscapedName() throws Exception {
        String name = "ops,team=a";
        ScramCredential c = ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_512, "s3cret é", SALT, 8192);
        ScramServer server = new ScramServer(ScramMechanism.SCRAM_SHA_512, n -> n.equals(name) ? Optional.of(c) : Optional.empty());
        ScramClient client = new ScramClient(ScramMechanism.SCRAM_SHA_512, name, "s3cret é");
        byte[] first = client.firstMessage();
        assertThat(text(first)).startsWith("n,,n=ops=2Cteam=3Da,r=");
        client.verify(server.evaluate(client.finalMessage(server.evaluate(first))));
        assertThat(server.username()).isEqualTo(name);
    }

    @Test
    void theSaltedPasswordIsWhatAnAdminSends() {
        ScramMechanism m = ScramMechanism.SCRAM_SHA_512;
        byte[] salted = m.saltedPassword("pw", SALT, 4096);
        assertThat(salted).hasSize(64);
        assertThat(ScramCredential.fromSaltedPassword(m, SALT, salted, 4096))
            .isEqualTo(ScramCredential.fromPassword(m, "pw", SALT, 4096));
        assertThat(ScramCredential.invalid(m, SALT, salted, 4096)).isEmpty();
        assertThat(ScramCredential.invalid(m, SALT, salted, 4095)).hasValueSatisfying(s -> assertThat(s).contains("4096"));
        assertThat(ScramCredential.invalid(m, SALT, salted, 16385)).isPresent();
        assertThat(ScramCredential.invalid(m, new byte[4], salted, 4096)).hasValueSatisfying(s -> assertThat(s).contains("salt"));
        assertThat(ScramCredential.invalid(m, SALT, new byte[32], 4096)).hasValueSatisfying(s -> assertThat(s).contains("64"));
    }

    @Test
    void wrongPasswordAndUnknownUserFailTheSameWayAtTheProof() throws Exception {
        ScramCredential c = ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_512, "right", SALT, 4096);
        for (String[] attempt : new String[][] {{"alice", "wrong"}, {"mallory", "right"}}) {
            ScramServer server = server(ScramMechanism.SCRAM_SHA_512, Map.of("alice", c), "srv");
            ScramClient client = new ScramClient(ScramMechanism.SCRAM_SHA_512, attempt[0], attempt[1], () -> "cli");
            byte[] serverFirst = server.evaluate(client.firstMessage());
            assertThat(text(serverFirst)).matches("r=clisrv,s=[A-Za-z0-9+/=]+,i=\\d+");
            byte[] clientFinal = client.finalMessage(serverFirst);
            assertThatThrownBy(() -> server.evaluate(clientFinal)).isInstanceOf(ScramException.class)
                .hasMessage("authentication failed: invalid credentials for user '" + attempt[0] + "' with SCRAM-SHA-512");
            assertThat(server.complete()).isFalse();
            assertThatThrownBy(() -> server.evaluate(clientFinal)).hasMessageContaining("already ended");
        }
        // the decoy's salt is the same at each attempt, so two tries do not tell an unknown user apart
        byte[] a = server(ScramMechanism.SCRAM_SHA_512, Map.of(), "x").evaluate(utf8("n,,n=ghost,r=1"));
        byte[] b = server(ScramMechanism.SCRAM_SHA_512, Map.of(), "x").evaluate(utf8("n,,n=ghost,r=1"));
        assertThat(text(a)).isEqualTo(text(b));
    }

    @Test
    void aCredentialOfAnotherMechanismDoesNotServe() throws Exception {
        ScramCredential sha256 = ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_256, "pw", SALT, 4096);
        ScramServer server = server(ScramMechanism.SCRAM_SHA_512, Map.of("u", sha256), "s");
        ScramClient client = new ScramClient(ScramMechanism.SCRAM_SHA_512, "u", "pw");
        byte[] clientFinal = client.finalMessage(server.evaluate(client.firstMessage()));
        assertThatThrownBy(() -> server.evaluate(clientFinal)).hasMessageContaining("invalid credentials");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "no gs2 header|n=user,r=abc|no GS2 header",
        "channel binding asked|p=tls-unique,,n=user,r=abc|channel binding is not supported",
        "bad cbind flag|x,,n=user,r=abc|channel binding flag",
        "mandatory extension|n,,m=ext,n=user,r=abc|mandatory extensions",
        "no nonce|n,,n=user|must start n=<user>,r=<nonce>",
        "empty nonce|n,,n=user,r=|must start n=<user>,r=<nonce>",
        "order swapped|n,,r=abc,n=user|must start n=<user>,r=<nonce>",
        "empty user|n,,n=,r=abc|empty user name",
        "bad escape|n,,n=a=2Xb,r=abc|=2C or =3D",
        "other authzid|n,a=root,n=user,r=abc|authorization id differs",
        "delegation token|n,,n=user,r=abc,tokenauth=true|delegation tokens",
    })
    void malformedClientFirstMessages(String name, String message, String error) {
        ScramServer server = server(ScramMechanism.SCRAM_SHA_512, Map.of(), "s");
        assertThatThrownBy(() -> server.evaluate(utf8(message))).isInstanceOf(ScramException.class)
            .hasMessageContaining(error);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "no proof|c=biws,r=NONCE|no proof",
        "wrong binding|c=eSws,r=NONCE,p=AAAA|channel binding differs",
        "nonce changed|c=biws,r=NONCEx,p=AAAA|nonce mismatch",
        "proof not base64|c=biws,r=NONCE,p=!!!|not base64",
        "short proof|c=biws,r=NONCE,p=AAAA|invalid credentials",
        "junk attribute|c=biws,r=NONCE,xx,p=AAAA|not attr=value",
    })
    void malformedClientFinalMessages(String name, String template, String error) throws Exception {
        ScramCredential c = ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_512, "pw", SALT, 4096);
        ScramServer server = server(ScramMechanism.SCRAM_SHA_512, Map.of("u", c), "srv");
        server.evaluate(utf8("n,,n=u,r=cli"));
        assertThatThrownBy(() -> server.evaluate(utf8(template.replace("NONCE", "clisrv"))))
            .isInstanceOf(ScramException.class).hasMessageContaining(error);
    }

    @Test
    void theClientRefusesAServerThatCannotProveItself() throws Exception {
        ScramClient client = new ScramClient(ScramMechanism.SCRAM_SHA_512, "u", "pw", () -> "cli");
        client.firstMessage();
        assertThatThrownBy(() -> client.finalMessage(utf8("r=other,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")))
            .hasMessageContaining("does not extend ours");
        assertThatThrownBy(() -> client.finalMessage(utf8("r=clisrv,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=100")))
            .hasMessageContaining("100 iterations");
        assertThatThrownBy(() -> client.finalMessage(utf8("e=unknown-user"))).hasMessage("authentication failed: unknown-user");
        client.finalMessage(utf8("r=clisrv,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"));
        assertThatThrownBy(() -> client.verify(utf8("v=" + Base64.getEncoder().encodeToString(new byte[64]))))
            .hasMessageContaining("signature is wrong");
    }

    @Test
    void nonUtf8IsRefused() {
        ScramServer server = server(ScramMechanism.SCRAM_SHA_512, Map.of(), "s");
        assertThatThrownBy(() -> server.evaluate(new byte[] {'n', ',', ',', (byte) 0xff})).hasMessageContaining("UTF-8");
    }
}
