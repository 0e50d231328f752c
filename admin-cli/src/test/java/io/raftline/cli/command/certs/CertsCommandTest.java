package io.raftline.cli.command.certs;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.cli.RaftlineCli;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code raftline certs ca} and {@code certs issue} run in-process, their files read back with the JDK alone. */
class CertsCommandTest {

    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = RaftlineCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    private static List<X509Certificate> certificates(Path file) throws Exception {
        try (InputStream in = Files.newInputStream(file)) {
            List<X509Certificate> certs = new ArrayList<>();
            CertificateFactory.getInstance("X.509").generateCertificates(in).forEach(c -> certs.add((X509Certificate) c));
            return certs;
        }
    }

    @Test
    void issuesACertificateThatChainsToTheCaWithTheNamesAskedFor() throws Exception {
        Path ca = dir.resolve("tls");
        assertThat(run("certs", "ca", "--dir", ca.toString()).code()).isZero();
        Run issue = run("certs", "issue", "--ca-dir", ca.toString(), "--name", "node1", "--dns", "localhost",
            "--dns", "node1.example", "--ip", "127.0.0.1", "--out-dir", dir.resolve("out").toString());
        assertThat(issue.code()).as(issue.err()).isZero();
        assertThat(issue.out()).contains("node1.pem").contains("node1.key");

        X509Certificate caCert = certificates(ca.resolve("ca.pem")).get(0);
        List<X509Certificate> chain = certificates(dir.resolve("out/node1.pem"));
        assertThat(chain).hasSize(2);
        assertThat(chain.get(1)).isEqualTo(caCert);
        X509Certificate leaf = chain.get(0);
        assertThat(leaf.getSubjectX500Principal().getName()).isEqualTo("CN=node1");
        assertThat(leaf.getSubjectAlternativeNames().stream().map(n -> String.valueOf(n.get(1))))
            .containsExactlyInAnyOrder("localhost", "node1.example", "127.0.0.1");
        assertThat(leaf.getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
        assertThat(leaf.getBasicConstraints()).isEqualTo(-1);
        assertThat(caCert.getBasicConstraints()).isGreaterThanOrEqualTo(0);

        PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(caCert, null)));
        params.setRevocationEnabled(false);
        CertPathValidator.getInstance("PKIX").validate(
            CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf)), params);

        assertThat(Files.readString(dir.resolve("out/node1.key"))).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("out/node1.key"))))
            .isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ca.resolve("ca.key")))).isEqualTo("rw-------");
    }

    @Test
    void aSecondCaInTheSameDirIsRefusedAndTheFirstIsKept() throws Exception {
        assertThat(run("certs", "ca", "--dir", dir.toString()).code()).isZero();
        byte[] before = Files.readAllBytes(dir.resolve("ca.pem"));
        Run again = run("certs", "ca", "--dir", dir.toString());
        assertThat(again.code()).isEqualTo(1);
        assertThat(again.err()).startsWith("error: ").contains("already holds a CA");
        assertThat(Files.readAllBytes(dir.resolve("ca.pem"))).isEqualTo(before);
    }

    @Test
    void reissuingANameReplacesItsCertificate() throws Exception {
        assertThat(run("certs", "ca", "--dir", dir.toString()).code()).isZero();
        String[] issue = {"certs", "issue", "--ca-dir", dir.toString(), "--name", "app", "--out-dir", dir.toString()};
        assertThat(run(issue).code()).isZero();
        X509Certificate first = certificates(dir.resolve("app.pem")).get(0);
        assertThat(run(issue).code()).isZero();
        assertThat(certificates(dir.resolve("app.pem")).get(0).getSerialNumber()).isNotEqualTo(first.getSerialNumber());
        assertThat(first.getSubjectAlternativeNames()).isNull();
    }

    @Test
    void badInputIsOneErrorAndWritesNothing() throws Exception {
        Run noCa = run("certs", "issue", "--ca-dir", dir.resolve("none").toString(), "--name", "a", "--out-dir", dir.toString());
        assertThat(noCa.code()).isEqualTo(1);
        assertThat(noCa.err()).startsWith("error: no CA in").contains("ca.pem");

        assertThat(run("certs", "ca", "--dir", dir.toString()).code()).isZero();
        Path out = dir.resolve("out");
        Run badName = run("certs", "issue", "--ca-dir", dir.toString(), "--name", "../x", "--out-dir", out.toString());
        assertThat(badName.code()).isEqualTo(1);
        assertThat(badName.err()).contains("--name '../x'");
        Run badIp = run("certs", "issue", "--ca-dir", dir.toString(), "--name", "a", "--ip", "example.com",
            "--out-dir", out.toString());
        assertThat(badIp.code()).isEqualTo(1);
        assertThat(badIp.err()).contains("--ip 'example.com' is not an IPv4 or IPv6 address");
        assertThat(out).doesNotExist();
        assertThat(badIp.err().lines().count()).isEqualTo(1);
    }
}
