package io.raftline.client.internals.net;

import io.raftline.client.common.config.AbstractConfig;
import io.raftline.common.SystemTime;
import io.raftline.common.config.ConfigException;
import io.raftline.common.sasl.ScramMechanism;
import io.raftline.common.tls.PrincipalMapper;
import io.raftline.common.tls.ReloadingTls;
import io.raftline.common.tls.SecurityConfig;
import io.raftline.common.tls.TlsFiles;
import io.raftline.grpc.TransportSecurity;

/**
 * A client's transport from its config: {@code security.protocol=PLAINTEXT}, or {@code SSL} with
 * {@code ssl.truststore.location} (the CA the brokers' certificates chain to; their host names are verified) and, for
 * mTLS, {@code ssl.certificate.location} and {@code ssl.key.location}; or {@code SASL_SSL}: TLS, then a SCRAM session
 * as {@code sasl.username} ({@code sasl.password}, {@code sasl.mechanism}) on every connection. The files are read
 * and checked when the client is made (one error naming a bad file) and re-read when they change.
 */
public final class ClientSecurity {

    private ClientSecurity() {
    }

    public static TransportSecurity from(AbstractConfig config) {
        SecurityConfig.SecurityProtocol protocol = SecurityConfig.protocol(SecurityConfig.SECURITY_PROTOCOL,
            config.getString(SecurityConfig.SECURITY_PROTOCOL));
        if (protocol == SecurityConfig.SecurityProtocol.PLAINTEXT) {
            return TransportSecurity.plaintext();
        }
        TlsFiles files = SecurityConfig.files(config.getString(TlsFiles.CERTIFICATE_LOCATION),
            config.getString(TlsFiles.KEY_LOCATION), config.getString(TlsFiles.TRUSTSTORE_LOCATION));
        if (files.truststore() == null) {
            throw new ConfigException("missing config key '" + TlsFiles.TRUSTSTORE_LOCATION + "' (security.protocol=SSL "
                + "needs the CA that the brokers' certificates chain to)");
        }
        String username = config.getString(SecurityConfig.SASL_USERNAME);
        String password = config.getString(SecurityConfig.SASL_PASSWORD);
        if (protocol == SecurityConfig.SecurityProtocol.SASL_SSL && (username == null || username.isEmpty()
            || password == null || password.isEmpty())) {
            throw new ConfigException("missing config key '" + (username == null || username.isEmpty()
                ? SecurityConfig.SASL_USERNAME : SecurityConfig.SASL_PASSWORD) + "' (security.protocol=SASL_SSL needs "
                + "the SCRAM user's name and password)");
        }
        ReloadingTls tls = ReloadingTls.open(files, SystemTime.INSTANCE::milliseconds, ReloadingTls.DEFAULT_CHECK_INTERVAL_MS);
        TransportSecurity security = TransportSecurity.tls(tls, SecurityConfig.ClientAuth.NONE, PrincipalMapper.defaults(),
            SecurityConfig.verifiesHostname(config.getString(SecurityConfig.ENDPOINT_IDENTIFICATION)));
        if (protocol != SecurityConfig.SecurityProtocol.SASL_SSL) {
            return security;
        }
        ScramMechanism mechanism = ScramMechanism.forName(config.getString(SecurityConfig.SASL_MECHANISM)).orElseThrow();
        return security.withClientScram(new TransportSecurity.ClientScram(mechanism, username, password, SystemTime.INSTANCE));
    }
}
