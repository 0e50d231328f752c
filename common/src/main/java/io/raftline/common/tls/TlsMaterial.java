package io.raftline.common.tls;

import io.raftline.common.config.ConfigException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The keys and certificates of {@link TlsFiles}, read and checked once: every file readable PEM, the own certificate
 * valid now and matching its key, the truststore not empty. The JDK's key and trust managers over them do the
 * handshake checks (chain to the truststore, validity, and the peer's host name where the caller asks for it).
 */
public final class TlsMaterial {

    private final X509ExtendedKeyManager keyManager;
    private final X509ExtendedTrustManager trustManager;
    private final X509Certificate leaf;

    private TlsMaterial(X509ExtendedKeyManager keyManager, X509ExtendedTrustManager trustManager, X509Certificate leaf) {
        this.keyManager = keyManager;
        this.trustManager = trustManager;
        this.leaf = leaf;
    }

    /** Reads and checks {@code files} at {@code now}; a {@link ConfigException} naming the key and file otherwise. */
    public static TlsMaterial load(TlsFiles files, Instant now) {
        if (files.truststore() == null) {
            throw new ConfigException(TlsFiles.TRUSTSTORE_LOCATION + " is required when TLS is on");
        }
        List<X509Certificate> trusted = PemFiles.certificates(TlsFiles.TRUSTSTORE_LOCATION, files.truststore());
        try {
            KeyStore trustStore = emptyStore();
            for (int i = 0; i < trusted.size(); i++) {
                trustStore.setCertificateEntry("ca-" + i, trusted.get(i));
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
            tmf.init(trustStore);
            X509ExtendedTrustManager trustManager = only(tmf.getTrustManagers(), X509ExtendedTrustManager.class);
            if (!files.hasIdentity()) {
                return new TlsMaterial(null, trustManager, null);
            }
            List<X509Certificate> chain = PemFiles.certificates(TlsFiles.CERTIFICATE_LOCATION, files.certificate());
            PrivateKey key = PemFiles.privateKey(TlsFiles.KEY_LOCATION, files.key());
            PemFiles.checkValidity(TlsFiles.CERTIFICATE_LOCATION, files.certificate(), chain.get(0), now);
            PemFiles.checkKeyMatches(TlsFiles.KEY_LOCATION, files.key(), key, files.certificate(), chain.get(0));
            KeyStore keyStore = emptyStore();
            keyStore.setKeyEntry("node", key, new char[0], chain.toArray(X509Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance("PKIX");
            kmf.init(keyStore, new char[0]);
            return new TlsMaterial(only(kmf.getKeyManagers(), X509ExtendedKeyManager.class), trustManager, chain.get(0));
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new ConfigException("cannot use the TLS files " + files + ": " + e.getMessage());
        }
    }

    /** The own key manager, or null for a client without a certificate. */
    public X509ExtendedKeyManager keyManager() {
        return keyManager;
    }

    public X509ExtendedTrustManager trustManager() {
        return trustManager;
    }

    /** The own certificate, or null. */
    public X509Certificate certificate() {
        return leaf;
    }

    private static KeyStore emptyStore() throws GeneralSecurityException, java.io.IOException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        return store;
    }

    private static <T> T only(Object[] managers, Class<T> type) {
        for (Object m : managers) {
            if (type.isInstance(m)) {
                return type.cast(m);
            }
        }
        throw new IllegalStateException("the JDK offers no " + type.getSimpleName());
    }
}
