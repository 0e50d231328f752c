package io.raftline.common.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Certificates replaced on disk are picked up on the next check after the interval, bad replacements are not. */
class ReloadingTlsTest {

    private static final Instant START = Instant.parse("2026-06-01T00:00:00Z");
    private static final long INTERVAL_MS = 5_000;

    @TempDir
    Path dir;

    private final AtomicLong clockMs = new AtomicLong(START.toEpochMilli());
    private DevCertificates ca;
    private TlsFiles files;

    @BeforeEach
    void setUp() {
        ca = DevCertificates.createCa(dir.resolve("ca"), START.minus(Duration.ofDays(1)), Duration.ofDays(3650));
        issue();
        files = new TlsFiles(dir.resolve("node.pem"), dir.resolve("node.key"), dir.resolve("ca/ca.pem"));
    }

    /** Valid long enough that the JDK's own checks, which read the system clock, pass too. */
    private static final Duration VALIDITY = Duration.ofDays(3650);

    /** Issues node.pem/node.key again, and moves their modification time on, as a rotation seconds later would. */
    private void issue() {
        List<Path> written = ca.issue("node", List.of("localhost"), List.of(), dir, START.minus(Duration.ofDays(1)),
            VALIDITY);
        touch(written);
    }

    private void touch(List<Path> written) {
        try {
            for (Path p : written) {
                Files.setLastModifiedTime(p, FileTime.fromMillis(clockMs.get()));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private String servedSerial(ReloadingTls tls) {
        return tls.keyManager().getCertificateChain(
            tls.keyManager().chooseEngineServerAlias("EC", null, null))[0].getSerialNumber().toString();
    }

    @Test
    void aRotatedCertificateIsServedAfterTheCheckInterval() {
        ReloadingTls tls = ReloadingTls.open(files, clockMs::get, INTERVAL_MS);
        String first = servedSerial(tls);
        clockMs.addAndGet(1_000);
        issue();
        assertThat(servedSerial(tls)).as("within the interval the files are not looked at").isEqualTo(first);
        clockMs.addAndGet(INTERVAL_MS);
        String second = servedSerial(tls);
        assertThat(second).isNotEqualTo(first);
        assertThat(tls.current().certificate().getSerialNumber().toString()).isEqualTo(second);
        assertThat(tls.lastReloadError()).isNull();
    }

    @Test
    void aBrokenReplacementKeepsThePreviousMaterialUntilItIsFixed() throws Exception {
        ReloadingTls tls = ReloadingTls.open(files, clockMs::get, INTERVAL_MS);
        String first = servedSerial(tls);
        // a certificate whose key has not been copied yet: mismatched
        Path otherDir = Files.createDirectories(dir.resolve("other"));
        ca.issue("node", List.of(), List.of(), otherDir, START, VALIDITY);
        Files.copy(otherDir.resolve("node.pem"), files.certificate(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        clockMs.addAndGet(INTERVAL_MS);
        touch(List.of(files.certificate()));
        assertThat(servedSerial(tls)).isEqualTo(first);
        assertThat(tls.lastReloadError()).contains("is not the private key of the certificate in " + files.certificate());
        // the key arrives
        Files.copy(otherDir.resolve("node.key"), files.key(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        clockMs.addAndGet(INTERVAL_MS);
        touch(List.of(files.key()));
        assertThat(servedSerial(tls)).isNotEqualTo(first);
        assertThat(tls.lastReloadError()).isNull();
    }

    @Test
    void aTrustCheckAlsoTriggersTheReload() {
        ReloadingTls tls = ReloadingTls.open(files, clockMs::get, INTERVAL_MS);
        String first = tls.current().certificate().getSerialNumber().toString();
        clockMs.addAndGet(INTERVAL_MS);
        issue();
        assertThat(tls.trustManager().getAcceptedIssuers()).hasSize(1);
        try {
            tls.trustManager().checkClientTrusted(new java.security.cert.X509Certificate[] {tls.current().certificate()}, "EC");
        } catch (java.security.cert.CertificateException e) {
            throw new AssertionError(e);
        }
        assertThat(tls.current().certificate().getSerialNumber().toString()).isNotEqualTo(first);
    }
}
