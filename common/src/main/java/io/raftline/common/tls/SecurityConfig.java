package io.raftline.common.tls;

import io.raftline.common.config.ConfigDef;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The TLS keys of a node and of a client, defined once for {@code ServerConfig} and the SDK's configs (Kafka's
 * names; every file is PEM), and what they resolve to.
 */
public final class SecurityConfig {

    public static final String SSL_CLIENT_AUTH = "ssl.client.auth";
    public static final String SUPER_USERS = "super.users";
    public static final String AUTHORIZER_ENABLED = "authorizer.enabled";
    public static final String ALLOW_EVERYONE_IF_NO_ACL = "allow.everyone.if.no.acl.found";
    public static final String SECURITY_PROTOCOL = "security.protocol";
    /** Kafka's key: {@code https} (the default) verifies the server's host name against its certificate; "" does not. */
    public static final String ENDPOINT_IDENTIFICATION = "ssl.endpoint.identification.algorithm";
    /** The listeners whose {@code NAME.listener.security.protocol} a node reads. */
    public static final List<String> LISTENERS = List.of("broker", "controller", "quorum", "metrics", "kafka");
    /** The listeners clients authenticate on with SASL (the others are for nodes, or HTTP). */
    public static final List<String> SASL_LISTENERS = List.of("broker", "kafka");
    public static final String MAX_REAUTH_MS = "connections.max.reauth.ms";
    public static final String SASL_MECHANISM = "sasl.mechanism";
    public static final String SASL_USERNAME = "sasl.username";
    public static final String SASL_PASSWORD = "sasl.password";

    /** What a listener or a client speaks: SASL_SSL is TLS then SCRAM (a client certificate also identifies). */
    public enum SecurityProtocol {
        PLAINTEXT, SSL, SASL_SSL;

        public boolean isTls() {
            return this != PLAINTEXT;
        }
    }

    /** Whether a TLS server asks for the client's certificate: {@code required} is mTLS. */
    public enum ClientAuth { REQUIRED, REQUESTED, NONE }

    private SecurityConfig() {
    }

    public static String listenerProtocolKey(String listener) {
        return listener + ".listener.security.protocol";
    }

    private static ConfigDef defineFiles(ConfigDef def, String group) {
        return def
            .define(ENDPOINT_IDENTIFICATION, ConfigDef.Type.STRING, "https", ConfigDef.oneOfIgnoringCase("https", ""), group,
                "https: a TLS client (and a node on its links to other nodes) verifies the server's host name against "
                    + "its certificate; empty: it does not (the certificate must still chain to the truststore).")
            .define(TlsFiles.CERTIFICATE_LOCATION, ConfigDef.Type.STRING, null, null, group,
                "PEM file of this side's certificate chain (leaf first); with ssl.key.location.")
            .define(TlsFiles.KEY_LOCATION, ConfigDef.Type.STRING, null, null, group,
                "PEM file of the unencrypted PKCS#8 private key of ssl.certificate.location.")
            .define(TlsFiles.TRUSTSTORE_LOCATION, ConfigDef.Type.STRING, null, null, group,
                "PEM file of the CA certificates peers are checked against. Files are re-read when they change.");
    }

    /** The node's keys: the files, client auth, principal mapping, super users, and each listener's protocol. */
    public static ConfigDef defineServer(ConfigDef def, String group) {
        defineFiles(def, group)
            .define(SSL_CLIENT_AUTH, ConfigDef.Type.STRING, "none", ConfigDef.oneOfIgnoringCase("required", "requested", "none"),
                group, "Whether TLS listeners ask for the client's certificate: required (mTLS), requested or none.")
            .define(PrincipalMapper.MAPPING_RULES, ConfigDef.Type.STRING, "DEFAULT", ConfigDef.parses(PrincipalMapper::parse),
                group, "Rules mapping a client certificate's subject to a principal, in Kafka's syntax; DEFAULT gives "
                    + "User:<CN>.")
            .define(SUPER_USERS, ConfigDef.Type.STRING, "", null, group,
                "Super users, separated by ';' (User:a;User:b): the cluster's nodes and admins. With mTLS, "
                    + "inter-node requests (replica fetches, broker-to-controller) are accepted only from these and from "
                    + "this node's own principal.")
            .define(AUTHORIZER_ENABLED, ConfigDef.Type.BOOLEAN, false, null, group,
                "Enforce ACLs (raftline acls) on every client request and admin operation; super.users and this node's "
                    + "own principal may do anything.")
            .define(ALLOW_EVERYONE_IF_NO_ACL, ConfigDef.Type.BOOLEAN, false, null, group,
                "With authorizer.enabled: whether a resource that no ACL covers is open to every principal (Kafka's "
                    + "key; off, a principal needs an ACL for everything it does).")
            .define(MAX_REAUTH_MS, ConfigDef.Type.LONG, 0L, ConfigDef.atLeast(0), group,
                "How long a SASL session on a SASL_SSL listener holds before the client must authenticate again "
                    + "(KIP-368); 0: until the connection closes. A removed user's sessions end at its next request.");
        for (String listener : LISTENERS) {
            boolean sasl = SASL_LISTENERS.contains(listener);
            def.define(listenerProtocolKey(listener), ConfigDef.Type.STRING, "PLAINTEXT",
                sasl ? ConfigDef.oneOfIgnoringCase("PLAINTEXT", "SSL", "SASL_SSL") : ConfigDef.oneOfIgnoringCase("PLAINTEXT", "SSL"),
                group, "What " + listener + ".listener speaks: PLAINTEXT or SSL" + (listener.equals("broker")
                    ? ", or SASL_SSL (TLS, then SCRAM users or client certificates; the nodes replicate with their "
                        + "certificates, so it needs ssl.client.auth=requested)"
                    : sasl ? ", or SASL_SSL (TLS, then SaslHandshake/SaslAuthenticate with SCRAM users; a client "
                        + "certificate also identifies)" : "") + ".");
        }
        return def;
    }

    /** A client's keys: {@code security.protocol} and the files. */
    public static ConfigDef defineClient(ConfigDef def) {
        def.define(SECURITY_PROTOCOL, ConfigDef.Type.STRING, "PLAINTEXT", ConfigDef.oneOfIgnoringCase("PLAINTEXT", "SSL", "SASL_SSL"),
            "", "PLAINTEXT, SSL (TLS to every broker; the server's host name is verified) or SASL_SSL (TLS, then the "
                + "SCRAM user sasl.username)")
            .define(SASL_MECHANISM, ConfigDef.Type.STRING, "SCRAM-SHA-512",
                ConfigDef.oneOfIgnoringCase("SCRAM-SHA-512", "SCRAM-SHA-256"), "",
                "With security.protocol=SASL_SSL: the SCRAM mechanism (the user needs a credential for it).")
            .define(SASL_USERNAME, ConfigDef.Type.STRING, null, null, "", "With SASL_SSL: the SCRAM user name.")
            .define(SASL_PASSWORD, ConfigDef.Type.STRING, null, null, "",
                "With SASL_SSL: the SCRAM user's password (kept in memory only; never logged).");
        return defineFiles(def, "");
    }

    /** Parses a protocol value that the ConfigDef already checked. */
    public static SecurityProtocol protocol(String key, String value) {
        return SecurityProtocol.valueOf(value.toUpperCase(Locale.ROOT));
    }

    /** Whether {@code ssl.endpoint.identification.algorithm} asks for host name verification. */
    public static boolean verifiesHostname(String value) {
        return value == null || !value.isEmpty();
    }

    public static ClientAuth clientAuth(String value) {
        return ClientAuth.valueOf(value.toUpperCase(Locale.ROOT));
    }

    /** The files named by the three location keys (values may be null). */
    public static TlsFiles files(String certificate, String key, String truststore) {
        return new TlsFiles(path(certificate), path(key), path(truststore));
    }

    private static Path path(String value) {
        return value == null || value.isBlank() ? null : Path.of(value.trim());
    }

    /** {@code super.users}: {@code User:a;User:b}, blanks dropped. */
    public static List<String> superUsers(String value) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        return java.util.Arrays.stream(value.split(";")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
