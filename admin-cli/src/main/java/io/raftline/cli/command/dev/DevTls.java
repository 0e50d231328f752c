package io.raftline.cli.command.dev;

import io.raftline.common.tls.DevCertificates;
import io.raftline.common.tls.TlsFiles;
import io.raftline.common.tls.TlsMaterial;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.List;
import java.util.StringJoiner;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/**
 * The TLS of {@code raftline dev --tls}: a CA in {@code DIR/tls/} (as {@code raftline certs ca} makes it, so
 * {@code certs issue --ca-dir DIR/tls} adds client certificates), a certificate per node ({@code node-i}, for
 * 127.0.0.1 and localhost) and one for the admin principal {@code User:admin}, all kept across restarts; and
 * {@code DIR/client.properties}, the admin's client config. Every listener speaks TLS and requires client
 * certificates; {@code super.users} lists the nodes and the admin. The tests' clusters are made the same way.
 */
public final class DevTls {

    public static final String ADMIN = "admin";

    private final Path dir;
    private final Path clientProperties;
    private final int nodes;

    private DevTls(Path dir, Path clientProperties, int nodes) {
        this.dir = dir;
        this.clientProperties = clientProperties;
        this.nodes = nodes;
    }

    /** Makes what is missing: the CA, the node and admin certificates, client.properties. */
    public static DevTls prepare(Path root, int nodes, Instant now) throws IOException {
        Path dir = root.resolve("tls");
        DevCertificates ca = Files.exists(dir.resolve(DevCertificates.CA_CERT)) ? DevCertificates.loadCa(dir)
            : DevCertificates.createCa(dir, now, DevCertificates.CA_VALIDITY);
        DevTls tls = new DevTls(dir, root.resolve("client.properties"), nodes);
        for (int i = 1; i <= nodes; i++) {
            if (!Files.exists(tls.cert(nodeName(i)))) {
                ca.issue(nodeName(i), List.of("localhost"), List.of("127.0.0.1"), dir, now, DevCertificates.CERT_VALIDITY);
            }
        }
        if (!Files.exists(tls.cert(ADMIN))) {
            ca.issue(ADMIN, List.of(), List.of(), dir, now, DevCertificates.CERT_VALIDITY);
        }
        Files.writeString(tls.clientProperties, "# Written by raftline dev --tls: the admin principal (User:admin).\n"
            + "security.protocol=SSL\n"
            + "ssl.truststore.location=" + tls.ca() + "\n"
            + "ssl.certificate.location=" + tls.cert(ADMIN) + "\n"
            + "ssl.key.location=" + tls.key(ADMIN) + "\n", StandardCharsets.UTF_8);
        return tls;
    }

    public static String nodeName(int i) {
        return "node-" + i;
    }

    public Path ca() {
        return dir.resolve(DevCertificates.CA_CERT);
    }

    public Path cert(String name) {
        return dir.resolve(name + ".pem");
    }

    public Path key(String name) {
        return dir.resolve(name + ".key");
    }

    public Path clientProperties() {
        return clientProperties;
    }

    /** The lines node {@code i}'s server.properties gets. */
    public String serverProperties(int i) {
        StringJoiner superUsers = new StringJoiner(";");
        superUsers.add("User:" + ADMIN);
        for (int n = 1; n <= nodes; n++) {
            superUsers.add("User:" + nodeName(n));
        }
        return "ssl.certificate.location=" + cert(nodeName(i)) + "\n"
            + "ssl.key.location=" + key(nodeName(i)) + "\n"
            + "ssl.truststore.location=" + ca() + "\n"
            + "ssl.client.auth=required\n"
            + "super.users=" + superUsers + "\n"
            + "broker.listener.security.protocol=SSL\n"
            + "controller.listener.security.protocol=SSL\n"
            + "quorum.listener.security.protocol=SSL\n"
            + "metrics.listener.security.protocol=SSL\n"
            + "kafka.listener.security.protocol=SSL\n"
            + "authorizer.enabled=true\n"
            + "allow.everyone.if.no.acl.found=false\n";
    }

    /** The admin's TLS, for dev's own calls to the nodes' HTTPS /ready. */
    public SSLContext adminContext(Instant now) {
        TlsMaterial admin = TlsMaterial.load(new TlsFiles(cert(ADMIN), key(ADMIN), ca()), now);
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[] {admin.keyManager()}, new TrustManager[] {admin.trustManager()}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the admin's TLS context: " + e.getMessage(), e);
        }
    }
}
