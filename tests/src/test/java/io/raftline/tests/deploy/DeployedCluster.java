package io.raftline.tests.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.common.tls.PemFiles;
import io.raftline.common.tls.TlsFiles;
import io.raftline.common.tls.TlsMaterial;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;

/**
 * A cluster deployed onto {@link NetnsHosts} by deploy/ansible: writes the inventory (each host its own
 * raftline_root, nodes run by raftline-node.sh since the namespaces have no systemd), runs the playbooks,
 * and runs the distribution's CLI from a chosen host.
 */
final class DeployedCluster {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final NetnsHosts hosts;
    private final List<Integer> voters;
    private final List<Integer> brokers;
    private final Path inventory;
    private final Path dist;
    private final boolean tls;

    DeployedCluster(NetnsHosts hosts, List<Integer> voters, List<Integer> brokers) throws IOException {
        this(hosts, voters, brokers, false);
    }

    /**
     * With {@code tls}, the inventory sets {@code raftline_tls} and {@code raftline_tls_generate}: the tooling makes
     * the certificates in {@link #tlsDir()} and deploys TLS, mTLS and the authorizer; {@link #cli} then speaks as the
     * admin ({@link #adminConfig()}).
     */
    DeployedCluster(NetnsHosts hosts, List<Integer> voters, List<Integer> brokers, boolean tls) throws IOException {
        this.hosts = hosts;
        this.voters = voters;
        this.brokers = brokers;
        this.tls = tls;
        this.dist = Path.of(System.getProperty("raftline.dist", hosts.repo() + "/deploy/target/raftline-0.1.0-SNAPSHOT"))
            .toAbsolutePath().normalize();
        this.inventory = hosts.work().resolve("inventory.yml");
        Files.writeString(inventory, inventoryText());
        if (tls) {
            Files.writeString(adminConfig(), clientConfig("admin"));
        }
    }

    /** The certificates on the control host (raftline_tls_source_dir). */
    Path tlsDir() {
        return hosts.work().resolve("tls");
    }

    /** The admin's client config on the control host. */
    Path adminConfig() {
        return hosts.work().resolve("admin-client.properties");
    }

    /** A client config (TLS, the CA of tlsDir()) presenting tlsDir()/NAME.pem: principal User:NAME. */
    String clientConfig(String name) {
        return "security.protocol=SSL\n"
            + "ssl.truststore.location=" + tlsDir().resolve("ca.pem") + "\n"
            + "ssl.certificate.location=" + tlsDir().resolve(name + ".pem") + "\n"
            + "ssl.key.location=" + tlsDir().resolve(name + ".key") + "\n";
    }

    /** The tarball beside the unpacked distribution the build made. */
    Path tarball() {
        return Path.of(dist + ".tar.gz");
    }

    Path inventory() {
        return inventory;
    }

    private String inventoryText() {
        StringBuilder sb = new StringBuilder();
        sb.append("all:\n  vars:\n")
            .append("    ansible_user: root\n")
            .append("    ansible_ssh_private_key_file: ").append(hosts.key()).append('\n')
            .append("    ansible_ssh_common_args: \"-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
                + " -o BatchMode=yes -o LogLevel=ERROR\"\n")
            .append("    ansible_python_interpreter: /usr/bin/python3\n")
            .append("    raftline_tarball: ").append(tarball()).append('\n')
            .append("    raftline_service_manager: process\n")
            .append("    raftline_heap_opts: \"-Xmx384m\"\n")
            .append("    raftline_java_home: ").append(System.getProperty("java.home")).append('\n')
            .append("    raftline_replica_lag_time_max_ms: 5000\n")
            .append("    raftline_wait_delay: 1\n")
            .append("    raftline_wait_retries: 150\n");
        if (tls) {
            sb.append("    raftline_tls: true\n")
                .append("    raftline_tls_generate: true\n")
                .append("    raftline_tls_source_dir: ").append(tlsDir()).append('\n');
        }
        sb.append("  children:\n");
        appendGroup(sb, "raftline_quorum", voters);
        appendGroup(sb, "raftline_brokers", brokers);
        return sb.toString();
    }

    private void appendGroup(StringBuilder sb, String group, List<Integer> members) {
        sb.append("    ").append(group).append(":\n      hosts:\n");
        for (int i : members) {
            sb.append("        rl-n").append(i).append(": { ansible_host: ").append(NetnsHosts.ip(i))
                .append(", raftline_node_id: ").append(i)
                .append(", raftline_rack: r").append((i - 1) % 3 + 1)
                .append(", raftline_root: ").append(root(i)).append(" }\n");
        }
    }

    /** Host i's filesystem root. */
    Path root(int host) {
        return hosts.work().resolve("hosts/rl-n" + host);
    }

    NetnsHosts.Result playbook(String playbook, Duration timeout, String... extraArgs) {
        return hosts.ansible(inventory, playbook, timeout, extraArgs);
    }

    /** Runs deploy/scripts/raftline-cluster.sh COMMAND with the same inventory, as an operator without Ansible would. */
    NetnsHosts.Result script(String command, Duration timeout, String... extraArgs) {
        List<String> cmd = new ArrayList<>(List.of(hosts.repo().resolve("deploy/scripts/raftline-cluster.sh").toString(),
            command, "-i", inventory.toString()));
        cmd.addAll(List.of(extraArgs));
        return hosts.run(new ProcessBuilder(cmd), timeout, "script-" + command);
    }

    String bootstrap() {
        List<String> out = new ArrayList<>();
        for (int b : brokers) {
            out.add(NetnsHosts.ip(b) + ":9092");
        }
        return String.join(",", out);
    }

    List<Integer> brokers() {
        return brokers;
    }

    /** The distribution's bin/raftline (its {@code certs} commands, run here). */
    Path raftlineBin() {
        return dist.resolve("bin/raftline");
    }

    /**
     * The distribution's bin/raftline, run inside host's namespace, with the cluster's bootstrap (and with TLS, the
     * admin's --command-config).
     */
    ProcessBuilder cli(int host, String... args) {
        return cliWith(host, tls ? adminConfig() : null, args);
    }

    /** As {@link #cli}, with the given --command-config, or none when null. */
    ProcessBuilder cliWith(int host, Path commandConfig, String... args) {
        List<String> cmd = new ArrayList<>(List.of(raftlineBin().toString()));
        cmd.addAll(List.of(args));
        if (commandConfig != null) {
            cmd.add("--command-config");
            cmd.add(commandConfig.toString());
        }
        cmd.add("--bootstrap-server");
        cmd.add(bootstrap());
        ProcessBuilder pb = hosts.inHost(host, cmd);
        pb.environment().put("RAFTLINE_CLI_OPTS", "-Xmx256m -XX:+UseSerialGC");
        return pb;
    }

    /** A TLS context that trusts tlsDir()/ca.pem and presents tlsDir()/NAME.pem, or no certificate when name is null. */
    SSLContext sslContext(String name) throws GeneralSecurityException {
        TlsFiles files = new TlsFiles(name == null ? null : tlsDir().resolve(name + ".pem"),
            name == null ? null : tlsDir().resolve(name + ".key"), tlsDir().resolve("ca.pem"));
        TlsMaterial material = TlsMaterial.load(files, Instant.now());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(material.keyManager() == null ? null : new KeyManager[] {material.keyManager()},
            new TrustManager[] {material.trustManager()}, null);
        return context;
    }

    /**
     * GET https://HOST:metrics/PATH with the context: the status code, or an IOException when the node refuses the
     * TLS (with client authentication required, a client without a certificate learns it when it reads).
     */
    int https(int host, String path, SSLContext context) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("https://" + NetnsHosts.ip(host) + ":9095" + path))
            .timeout(Duration.ofSeconds(10)).build();
        return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** The certificate host's metrics listener presents now, in a handshake as the admin. */
    X509Certificate presented(int host) throws IOException, GeneralSecurityException {
        try (SSLSocket socket = (SSLSocket) sslContext("admin").getSocketFactory().createSocket(NetnsHosts.ip(host), 9095)) {
            socket.setSoTimeout(5000);
            socket.startHandshake();
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }

    /** The first certificate of a PEM file (a node's own, before the CA's). */
    static X509Certificate firstCertificate(Path pem) {
        return PemFiles.certificates("certificate", pem).get(0);
    }

    NetnsHosts.Result run(int host, Duration timeout, String... args) {
        return hosts.run(cli(host, args), timeout, "cli-" + args[0]);
    }

    JsonNode json(int host, String... args) throws IOException {
        String[] full = new String[args.length + 2];
        System.arraycopy(args, 0, full, 0, args.length);
        full[args.length] = "--output";
        full[args.length + 1] = "json";
        NetnsHosts.Result r = NetnsHosts.check(run(host, Duration.ofSeconds(60), full), String.join(" ", args));
        return JSON.readTree(r.out());
    }

    /** The ids of the brokers `brokers list` shows in the given state. */
    Set<Integer> brokersIn(int host, String state) {
        try {
            Set<Integer> ids = new TreeSet<>();
            for (JsonNode b : json(host, "brokers", "list").get("brokers")) {
                if (state.equals(b.get("state").asText())) {
                    ids.add(b.get("id").asInt());
                }
            }
            return ids;
        } catch (IOException | AssertionError e) {
            return Set.of();
        }
    }

    /** The partitions (topic-p) that list the broker as a replica but not in the ISR; null when describe fails. */
    List<String> notInIsr(int host, int broker) {
        try {
            List<String> out = new ArrayList<>();
            for (JsonNode t : json(host, "topics", "describe").get("topics")) {
                for (JsonNode p : t.get("partitions")) {
                    boolean replica = false;
                    boolean inIsr = false;
                    for (JsonNode r : p.get("replicas")) {
                        replica |= r.asInt() == broker;
                    }
                    for (JsonNode r : p.get("isr")) {
                        inIsr |= r.asInt() == broker;
                    }
                    if (replica && !inIsr) {
                        out.add(t.get("topic").asText() + "-" + p.get("partition").asInt());
                    }
                }
            }
            return out;
        } catch (IOException | AssertionError e) {
            return null;
        }
    }

    /** The quorum leader's id, or -1. */
    int quorumLeader(int host) {
        try {
            return json(host, "quorum", "status").get("leaderId").asInt();
        } catch (IOException | AssertionError e) {
            return -1;
        }
    }

    /** Every cluster.id found in the meta.properties of every host's data directories. */
    Set<String> clusterIds() throws IOException {
        Set<String> ids = new TreeSet<>();
        for (int host : hosts.allHosts()) {
            for (String dir : List.of("var/lib/raftline/metadata", "var/lib/raftline/logs")) {
                Path meta = root(host).resolve(dir).resolve("meta.properties");
                if (Files.isRegularFile(meta)) {
                    for (String line : Files.readAllLines(meta)) {
                        if (line.startsWith("cluster.id=")) {
                            ids.add(line.substring("cluster.id=".length()).strip());
                        }
                    }
                }
            }
        }
        return ids;
    }

    /** The pid of host's node (from its pid file), checked to be alive. */
    long nodePid(int host) throws IOException {
        String pid = Files.readString(root(host).resolve("var/lib/raftline/raftline.pid")).strip();
        long p = Long.parseLong(pid);
        assertThat(ProcessHandle.of(p).map(ProcessHandle::isAlive)).as("node on rl-n" + host + " runs").contains(true);
        return p;
    }

    /** The raftline.home a host's node JVM runs from. */
    String nodeHome(int host) throws IOException {
        String cmdline = new String(Files.readAllBytes(Path.of("/proc/" + nodePid(host) + "/cmdline"))).replace('\0', ' ');
        int at = cmdline.indexOf("-Draftline.home=");
        assertThat(at).as("node cmdline has raftline.home: " + cmdline).isGreaterThanOrEqualTo(0);
        int end = cmdline.indexOf(' ', at);
        return cmdline.substring(at + "-Draftline.home=".length(), end);
    }
}
