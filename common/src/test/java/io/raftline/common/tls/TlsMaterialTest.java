package io.raftline.common.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.common.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The start-up error for each way the PEM files can be unusable: one line naming the key and the file. */
class TlsMaterialTest {

    private static final Instant NOW = Instant.parse("2026-06-01T00:00:00Z");

    @TempDir
    static Path dir;

    private static TlsFiles good;

    @BeforeAll
    static void makeFiles() throws Exception {
        DevCertificates ca = DevCertificates.createCa(dir.resolve("ca"), NOW.minus(Duration.ofDays(1)), Duration.ofDays(3650));
        ca.issue("node", List.of("localhost"), List.of(), dir, NOW.minus(Duration.ofDays(1)), Duration.ofDays(30));
        ca.issue("other", List.of(), List.of(), dir, NOW.minus(Duration.ofDays(1)), Duration.ofDays(30));
        ca.issue("expired", List.of(), List.of(), dir, NOW.minus(Duration.ofDays(40)), Duration.ofDays(30));
        ca.issue("future", List.of(), List.of(), dir, NOW.plus(Duration.ofDays(1)), Duration.ofDays(30));
        Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");
        Files.writeString(dir.resolve("rsa-style.key"), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        Files.createDirectories(dir.resolve("a-directory.pem"));
        good = new TlsFiles(dir.resolve("node.pem"), dir.resolve("node.key"), dir.resolve("ca/ca.pem"));
    }

    static Stream<Arguments> badFiles() {
        Function<Path, TlsFiles> cert = p -> new TlsFiles(p, good.key(), good.truststore());
        Function<Path, TlsFiles> key = p -> new TlsFiles(good.certificate(), p, good.truststore());
        return Stream.of(
            Arguments.of("missing certificate", cert.apply(Path.of("missing.pem")),
                "ssl.certificate.location missing.pem does not exist"),
            Arguments.of("missing key", key.apply(Path.of("missing.key")), "ssl.key.location missing.key does not exist"),
            Arguments.of("missing truststore", new TlsFiles(good.certificate(), good.key(), Path.of("nope.pem")),
                "ssl.truststore.location nope.pem does not exist"),
            Arguments.of("unreadable certificate", cert.apply(Path.of("DIR/a-directory.pem")),
                "ssl.certificate.location DIR/a-directory.pem cannot be read"),
            Arguments.of("certificate file without a certificate", cert.apply(Path.of("DIR/garbage.pem")),
                "ssl.certificate.location DIR/garbage.pem holds no PEM certificate"),
            Arguments.of("key file without a PKCS#8 key", key.apply(Path.of("DIR/garbage.pem")),
                "ssl.key.location DIR/garbage.pem holds no PEM PKCS#8 private key"),
            Arguments.of("traditional key format", key.apply(Path.of("DIR/rsa-style.key")),
                "(convert it with: openssl pkcs8 -topk8 -nocrypt)"),
            Arguments.of("expired certificate", new TlsFiles(Path.of("DIR/expired.pem"), Path.of("DIR/expired.key"),
                good.truststore()), "ssl.certificate.location DIR/expired.pem: certificate expired at"),
            Arguments.of("certificate not valid yet", new TlsFiles(Path.of("DIR/future.pem"), Path.of("DIR/future.key"),
                good.truststore()), "ssl.certificate.location DIR/future.pem: certificate not valid before"),
            Arguments.of("key of another certificate", key.apply(Path.of("DIR/other.key")),
                "ssl.key.location DIR/other.key is not the private key of the certificate in DIR/node.pem"),
            Arguments.of("no truststore", new TlsFiles(good.certificate(), good.key(), null),
                "ssl.truststore.location is required when TLS is on"));
    }

    private static Path real(Path p) {
        return p != null && p.startsWith("DIR") ? dir.resolve(p.subpath(1, p.getNameCount())) : p;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFiles")
    void unusableFilesAreOneErrorNamingKeyAndFile(String name, TlsFiles files, String expected) {
        TlsFiles resolved = new TlsFiles(real(files.certificate()), real(files.key()), real(files.truststore()));
        assertThatThrownBy(() -> TlsMaterial.load(resolved, NOW))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining(expected.replace("DIR/", dir + "/"))
            .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void goodFilesLoad() {
        TlsMaterial material = TlsMaterial.load(good, NOW);
        assertThat(material.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=node");
        assertThat(material.keyManager().getCertificateChain(material.keyManager().chooseEngineServerAlias("EC", null, null)))
            .hasSize(2);
        assertThat(material.trustManager().getAcceptedIssuers()).hasSize(1);
    }

    @Test
    void aClientWithoutACertificateNeedsOnlyTheTruststore() {
        TlsMaterial material = TlsMaterial.load(new TlsFiles(null, null, good.truststore()), NOW);
        assertThat(material.keyManager()).isNull();
        assertThat(material.trustManager()).isNotNull();
    }

    @Test
    void aCertificateWithoutKeyIsRefused() {
        assertThatThrownBy(() -> new TlsFiles(good.certificate(), null, good.truststore()))
            .hasMessage("ssl.certificate.location and ssl.key.location go together: set both or neither");
    }
}
