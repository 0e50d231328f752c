package io.raftline.common.tls;

import java.nio.file.Path;

/**
 * The PEM files of one side of a TLS link: {@code ssl.certificate.location} (own certificate chain, leaf first),
 * {@code ssl.key.location} (its PKCS#8 private key) and {@code ssl.truststore.location} (the CA bundle peers are
 * checked against). A client without a certificate has neither certificate nor key; a node has all three.
 */
public record TlsFiles(Path certificate, Path key, Path truststore) {

    public static final String CERTIFICATE_LOCATION = "ssl.certificate.location";
    public static final String KEY_LOCATION = "ssl.key.location";
    public static final String TRUSTSTORE_LOCATION = "ssl.truststore.location";

    public TlsFiles {
        if ((certificate == null) != (key == null)) {
            throw new io.raftline.common.config.ConfigException(CERTIFICATE_LOCATION + " and " + KEY_LOCATION
                + " go together: set both or neither");
        }
    }

    public boolean hasIdentity() {
        return certificate != null;
    }
}
