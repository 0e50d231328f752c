package io.raftline.common.tls;

import io.raftline.common.config.ConfigException;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Key and trust managers over {@link TlsFiles} that pick up new files without a restart: at the start of a handshake,
 * at most once per {@code checkIntervalMs}, the files' modification times and sizes are compared with those last
 * loaded, and changed files are read and checked again. A change that does not load (a half-copied file, a key that
 * does not match yet, an expired certificate) keeps the previous material and is reported through
 * {@link #lastReloadError()} and the log; the next check tries again. Open connections keep their session.
 *
 * <p>Thread-safe: handshakes on any thread call in; one of them reloads at a time.
 */
public final class ReloadingTls {

    private static final System.Logger LOG = System.getLogger(ReloadingTls.class.getName());

    /** How often a handshake looks at the files by default. */
    public static final long DEFAULT_CHECK_INTERVAL_MS = 5_000;

    private final TlsFiles files;
    private final LongSupplier wallClockMs;
    private final long checkIntervalMs;
    private final KeyManager keyManager = new KeyManager();
    private final TrustManager trustManager = new TrustManager();

    private volatile TlsMaterial material;
    private volatile List<Object> fingerprint;
    private volatile String lastReloadError;
    private long lastCheckMs;

    private ReloadingTls(TlsFiles files, LongSupplier wallClockMs, long checkIntervalMs, TlsMaterial material,
                         List<Object> fingerprint) {
        this.files = files;
        this.wallClockMs = wallClockMs;
        this.checkIntervalMs = checkIntervalMs;
        this.material = material;
        this.fingerprint = fingerprint;
        this.lastCheckMs = wallClockMs.getAsLong();
    }

    /**
     * Loads {@code files} now (a {@link ConfigException} naming the key and file if they cannot be used: the start-up
     * error) and watches them from then on.
     *
     * @param wallClockMs the wall clock (certificate validity is wall-clock time), injected so tests can step it
     */
    public static ReloadingTls open(TlsFiles files, LongSupplier wallClockMs, long checkIntervalMs) {
        List<Object> fingerprint = fingerprint(files);
        TlsMaterial material = TlsMaterial.load(files, Instant.ofEpochMilli(wallClockMs.getAsLong()));
        return new ReloadingTls(files, wallClockMs, checkIntervalMs, material, fingerprint);
    }

    /** Null for a side without its own certificate. */
    public X509ExtendedKeyManager keyManager() {
        return files.hasIdentity() ? keyManager : null;
    }

    public X509ExtendedTrustManager trustManager() {
        return trustManager;
    }

    public TlsFiles files() {
        return files;
    }

    /** The material in use now (after any reload a handshake triggered). */
    public TlsMaterial current() {
        return material;
    }

    /** Why the last reload attempt failed, or null if it did not. */
    public String lastReloadError() {
        return lastReloadError;
    }

    /** Checks the files if the interval has passed since the last check, and reloads them if they changed. */
    public void maybeReload() {
        long now = wallClockMs.getAsLong();
        synchronized (this) {
            if (now - lastCheckMs < checkIntervalMs) {
                return;
            }
            lastCheckMs = now;
            List<Object> seen = fingerprint(files);
            if (seen.equals(fingerprint)) {
                return;
            }
            try {
                material = TlsMaterial.load(files, Instant.ofEpochMilli(now));
                fingerprint = seen;
                lastReloadError = null;
                LOG.log(System.Logger.Level.INFO, "reloaded TLS files " + files);
            } catch (ConfigException e) {
                if (!Objects.equals(e.getMessage(), lastReloadError)) {
                    LOG.log(System.Logger.Level.WARNING, "changed TLS files not loaded, keeping the previous ones: "
                        + e.getMessage());
                }
                lastReloadError = e.getMessage();
            }
        }
    }

    /** Modification time and size of each file: what a replacement changes. A missing file reads as absent. */
    private static List<Object> fingerprint(TlsFiles files) {
        List<Object> parts = new ArrayList<>();
        for (Path p : new Path[] {files.certificate(), files.key(), files.truststore()}) {
            if (p == null) {
                parts.add("none");
                continue;
            }
            try {
                parts.add(Files.getLastModifiedTime(p).toMillis());
                parts.add(Files.size(p));
            } catch (IOException e) {
                parts.add("absent");
            }
        }
        return List.copyOf(parts);
    }

    /** Chooses from the current material; a server or client alias choice starts a handshake, so it checks first. */
    private final class KeyManager extends X509ExtendedKeyManager {
        private X509ExtendedKeyManager delegate() {
            return material.keyManager();
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return delegate().getClientAliases(keyType, issuers);
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            maybeReload();
            return delegate().chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            maybeReload();
            return delegate().chooseEngineClientAlias(keyType, issuers, engine);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return delegate().getServerAliases(keyType, issuers);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            maybeReload();
            return delegate().chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            maybeReload();
            return delegate().chooseEngineServerAlias(keyType, issuers, engine);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return delegate().getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return delegate().getPrivateKey(alias);
        }
    }

    /** Checks peers against the current truststore, the JDK's checks (chain, validity, host name) unchanged. */
    private final class TrustManager extends X509ExtendedTrustManager {
        private X509ExtendedTrustManager delegate() {
            maybeReload();
            return material.trustManager();
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            delegate().checkClientTrusted(chain, authType, socket);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            delegate().checkServerTrusted(chain, authType, socket);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            delegate().checkClientTrusted(chain, authType, engine);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            delegate().checkServerTrusted(chain, authType, engine);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            delegate().checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            delegate().checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return material.trustManager().getAcceptedIssuers();
        }
    }
}
