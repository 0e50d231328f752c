package io.raftline.broker.config;

import io.raftline.common.Time;
import io.raftline.common.config.ConfigException;
import io.raftline.common.tls.PrincipalMapper;
import io.raftline.common.tls.ReloadingTls;
import io.raftline.common.tls.SecurityConfig;
import io.raftline.common.tls.SecurityConfig.ClientAuth;
import io.raftline.common.tls.SecurityConfig.SecurityProtocol;
import io.raftline.common.tls.TlsFiles;
import io.raftline.grpc.TransportSecurity;
import io.raftline.metadata.quorum.QuorumSecurity;
import java.security.GeneralSecurityException;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/**
 * A node's TLS, resolved once at start from {@code server.properties}: one set of PEM files ({@code ssl.*}, read and
 * checked now: the start-up error names a missing, unreadable, expired or mismatched file) serves every listener whose
 * {@code *.listener.security.protocol} is SSL, and the node's own links to those listeners on other nodes (follower
 * fetch to broker.listener, broker to controller.listener, Ratis between quorum.listeners), so the node's certificate
 * is also its client certificate there and its principal a node principal.
 *
 * <p>Node principals: the principals in {@code super.users} and this node's own (its certificate's subject through
 * {@code ssl.principal.mapping.rules}). Under mTLS only they may call the controller service or fetch as a replica.
 */
public final class NodeSecurity {

    private static final NodeSecurity PLAINTEXT = new NodeSecurity(null, null, TransportSecurity.plaintext(),
        TransportSecurity.plaintext(), false, false, ClientAuth.NONE, p -> false, TransportSecurity.plaintext(), false,
        false, 0);

    private final ReloadingTls tls;
    private final TransportSecurity broker;
    private final TransportSecurity controller;
    private final boolean quorumTls;
    private final boolean metricsTls;
    private final ClientAuth clientAuth;
    private final Predicate<String> nodePrincipals;
    private final TransportSecurity kafka;
    private final boolean brokerSasl;
    private final boolean kafkaSasl;
    private final long maxReauthMs;
    /** The TLS side shared by the listeners that run TLS; null when none does. */
    private final TransportSecurity tlsSecurity;

    private NodeSecurity(ReloadingTls tls, TransportSecurity tlsSecurity, TransportSecurity broker,
                         TransportSecurity controller, boolean quorumTls, boolean metricsTls, ClientAuth clientAuth,
                         Predicate<String> nodePrincipals,
                         TransportSecurity kafka, boolean brokerSasl, boolean kafkaSasl, long maxReauthMs) {
        this.tlsSecurity = tlsSecurity;
        this.kafka = kafka;
        this.brokerSasl = brokerSasl;
        this.kafkaSasl = kafkaSasl;
        this.maxReauthMs = maxReauthMs;
        this.tls = tls;
        this.broker = broker;
        this.controller = controller;
        this.quorumTls = quorumTls;
        this.metricsTls = metricsTls;
        this.clientAuth = clientAuth;
        this.nodePrincipals = nodePrincipals;
    }

    public static NodeSecurity plaintext() {
        return PLAINTEXT;
    }

    /** Reads the TLS files if any listener is SSL; a {@link ConfigException} with one line otherwise. */
    public static NodeSecurity from(ServerConfig config, Time time) {
        boolean brokerTls = ssl(config, "broker");
        boolean controllerTls = ssl(config, "controller");
        boolean quorumTls = ssl(config, "quorum");
        boolean metricsTls = ssl(config, "metrics");
        boolean kafkaTls = ssl(config, "kafka");
        boolean brokerSasl = sasl(config, "broker");
        boolean kafkaSasl = sasl(config, "kafka");
        if (!brokerTls && !controllerTls && !quorumTls && !metricsTls && !kafkaTls) {
            return PLAINTEXT;
        }
        TlsFiles files = SecurityConfig.files(config.getString(TlsFiles.CERTIFICATE_LOCATION),
            config.getString(TlsFiles.KEY_LOCATION), config.getString(TlsFiles.TRUSTSTORE_LOCATION));
        if (!files.hasIdentity()) {
            throw new ConfigException("missing config key '" + TlsFiles.CERTIFICATE_LOCATION + "' (and '"
                + TlsFiles.KEY_LOCATION + "'): a node with an SSL listener needs its certificate and key");
        }
        ReloadingTls tls = ReloadingTls.open(files, time::milliseconds, ReloadingTls.DEFAULT_CHECK_INTERVAL_MS);
        ClientAuth auth = SecurityConfig.clientAuth(config.getString(SecurityConfig.SSL_CLIENT_AUTH));
        if (brokerSasl && auth == ClientAuth.NONE) {
            throw new ConfigException(SecurityConfig.SSL_CLIENT_AUTH, "none", "broker.listener is SASL_SSL, and the nodes "
                + "fetch from it with their certificates: set ssl.client.auth=requested (clients then use SCRAM or a "
                + "certificate)");
        }        PrincipalMapper mapper = PrincipalMapper.parse(config.getString(PrincipalMapper.MAPPING_RULES));
        TransportSecurity tlsSecurity = TransportSecurity.tls(tls, auth, mapper,
            SecurityConfig.verifiesHostname(config.getString(SecurityConfig.ENDPOINT_IDENTIFICATION)));
        Set<String> superUsers = new HashSet<>(SecurityConfig.superUsers(config.getString(SecurityConfig.SUPER_USERS)));
        Predicate<String> nodes = TransportSecurity.nodePrincipals(superUsers, tlsSecurity.ownPrincipal());
        return new NodeSecurity(tls, tlsSecurity, brokerTls ? tlsSecurity : TransportSecurity.plaintext(),
            controllerTls ? tlsSecurity : TransportSecurity.plaintext(), quorumTls, metricsTls, auth, nodes,
            kafkaTls ? tlsSecurity : TransportSecurity.plaintext(), brokerSasl, kafkaSasl,
            config.getLong(SecurityConfig.MAX_REAUTH_MS));
    }

    /** Whether the listener runs TLS (SSL, or SASL_SSL). */
    private static boolean ssl(ServerConfig config, String listener) {
        return protocol(config, listener).isTls();
    }

    private static boolean sasl(ServerConfig config, String listener) {
        return protocol(config, listener) == SecurityProtocol.SASL_SSL;
    }

    private static SecurityProtocol protocol(ServerConfig config, String listener) {
        String key = SecurityConfig.listenerProtocolKey(listener);
        return SecurityConfig.protocol(key, config.getString(key));
    }

    /** broker.listener, and this node's follower fetches from the other brokers. */
    public TransportSecurity broker() {
        return broker;
    }

    /** controller.listener, and this node's broker-to-controller links. */
    public TransportSecurity controller() {
        return controller;
    }

    /** kafka.listener's TLS (its server context has no ALPN), or plaintext. */
    public TransportSecurity kafka() {
        return kafka;
    }

    /** broker.listener is SASL_SSL: clients authenticate with SCRAM (or a certificate). */
    public boolean brokerSasl() {
        return brokerSasl;
    }

    /** kafka.listener is SASL_SSL: Kafka clients authenticate with SaslHandshake/SaslAuthenticate (or a certificate). */
    public boolean kafkaSasl() {
        return kafkaSasl;
    }

    /** connections.max.reauth.ms. */
    public long maxReauthMs() {
        return maxReauthMs;
    }

    public Predicate<String> nodePrincipals() {
        return nodePrincipals;
    }

    /** What the quorum role needs: the controller service's security and Ratis's TLS. */
    public QuorumSecurity quorum() {
        return new QuorumSecurity(controller, quorumTls ? tls : null, clientAuth == ClientAuth.REQUIRED, nodePrincipals);
    }

    /** The metrics listener's TLS context, or null when it is plaintext. */
    /**
     * The principal of a client's TLS session on one of this node's listeners (the metrics listener's included), by
     * {@code ssl.principal.mapping.rules}; {@code User:ANONYMOUS} without a certificate or without TLS.
     */
    public String principalOf(javax.net.ssl.SSLSession session) {
        return tlsSecurity == null || session == null ? TransportSecurity.ANONYMOUS : tlsSecurity.principalOf(session);
    }

    public SSLContext metricsSslContext() {
        if (!metricsTls) {
            return null;
        }
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[] {tls.keyManager()}, new TrustManager[] {tls.trustManager()}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the metrics listener's TLS context: " + e.getMessage(), e);
        }
    }

    /** ssl.client.auth, for the metrics listener (HTTPS asks for client certificates as the gRPC listeners do). */
    public ClientAuth clientAuth() {
        return clientAuth;
    }
}
