package io.raftline.tests.deploy;

import io.raftline.tests.cluster.NetnsLock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Separate "hosts" on this machine: network namespaces made by the repository's {@code tests/scripts/netns-hosts.sh}
 * (rl-n1..N at 10.77.0.11+ on a bridge with no way out), each with its own sshd, so the deploy tooling reaches them over ssh as it would
 * reach VMs. The namespaces share this machine's filesystem, so each host gets its own root directory
 * ({@code raftline_root}) under the test's work directory.
 *
 * <p>Every command is bounded by a timeout; {@link #close()} removes the namespaces and kills every process in
 * them (sshd, the nodes), and releases the machine-wide lock that keeps two such tests apart.
 */
final class NetnsHosts implements AutoCloseable {

    static final String SUBNET = "10.77.0.";

    /** One command's outcome. */
    record Result(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + tail(out) + "\n--- stderr\n" + tail(err);
        }

        private static String tail(String s) {
            return s.length() <= 6000 ? s : "..." + s.substring(s.length() - 6000);
        }
    }

    private final Path repoRoot;
    private final Path helper;
    private final Path work;
    private final int count;
    private final NetnsLock lock;
    private final List<Process> sshds = new ArrayList<>();
    private int commands;
    private boolean passed;

    private NetnsHosts(Path repoRoot, Path work, int count, NetnsLock lock) {
        this.repoRoot = repoRoot;
        this.helper = helperPath(repoRoot);
        this.work = work;
        this.count = count;
        this.lock = lock;
    }

    /** The repository root: the first directory up from the working directory that holds deploy/ansible. */
    static Path repoRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("deploy/ansible"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no deploy/ansible above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    static Path helperPath(Path repoRoot) {
        return repoRoot.resolve("tests/scripts/netns-hosts.sh");
    }

    /**
     * Why hosts cannot be made here, or empty when they can. With {@code install}, first installs what is
     * missing from Debian's packages (openssh-server, ansible, nftables) when apt-get is there.
     */
    static Optional<String> missingPrerequisite(boolean install) {
        Path helper = helperPath(repoRoot());
        if (!Files.isRegularFile(helper)) {
            return Optional.of("no network-namespace helper at " + helper);
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("not root (network namespaces need root)");
        }
        if (install && !hasAll() && Files.isExecutable(Path.of("/usr/bin/apt-get"))) {
            Result update = exec(Duration.ofMinutes(5), List.of("apt-get", "update", "-q"), null);
            if (update.exitCode() != 0) {
                return Optional.of("apt-get update failed: " + firstLine(update.err()));
            }
            Result get = exec(Duration.ofMinutes(10), List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get",
                "install", "-y", "-q", "openssh-server", "ansible", "nftables"), null);
            if (get.exitCode() != 0) {
                return Optional.of("apt-get install openssh-server ansible nftables failed: " + firstLine(get.err()));
            }
        }
        for (String tool : List.of("/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/ansible-playbook",
            "/usr/sbin/nft", "/usr/sbin/ip")) {
            if (!Files.isExecutable(Path.of(tool)) && !Files.isExecutable(Path.of(tool.replace("/usr/sbin/", "/sbin/")))) {
                return Optional.of("missing " + tool + " (apt-get install openssh-server ansible nftables iproute2)");
            }
        }
        Result probe = exec(Duration.ofSeconds(20), List.of("ip", "netns", "add", "rl-probe"), null);
        exec(Duration.ofSeconds(20), List.of("ip", "netns", "del", "rl-probe"), null);
        if (probe.exitCode() != 0) {
            return Optional.of("cannot make network namespaces: " + firstLine(probe.err()));
        }
        return Optional.empty();
    }

    private static boolean hasAll() {
        return Files.isExecutable(Path.of("/usr/sbin/sshd")) && Files.isExecutable(Path.of("/usr/bin/ansible-playbook"))
            && Files.isExecutable(Path.of("/usr/sbin/nft"));
    }

    private static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }

    /** Takes the machine-wide lock (waiting at most 15 minutes), makes {@code count} hosts and starts sshd in each. */
    static NetnsHosts start(Path work, int count) throws IOException, InterruptedException {
        NetnsLock lock = NetnsLock.acquire();
        NetnsHosts hosts = new NetnsHosts(repoRoot(), work, count, lock);
        try {
            hosts.up();
        } catch (RuntimeException | IOException | InterruptedException e) {
            hosts.close();
            throw e;
        }
        return hosts;
    }

    private void up() throws IOException, InterruptedException {
        // A previous run killed hard may have left namespaces behind: start from nothing.
        helper(Duration.ofMinutes(1), "down");
        check(helper(Duration.ofMinutes(2), "up", Integer.toString(count)), "netns-hosts.sh up");
        Files.createDirectories(Path.of("/run/sshd"));
        check(exec(Duration.ofSeconds(30), List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
            key().toString()), null), "ssh-keygen (client key)");
        check(exec(Duration.ofSeconds(30), List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
            work.resolve("ssh_host_key").toString()), null), "ssh-keygen (host key)");
        Files.copy(Path.of(key() + ".pub"), work.resolve("authorized_keys"));
        for (int i = 1; i <= count; i++) {
            Path conf = work.resolve("sshd-" + i + ".conf");
            Files.writeString(conf, String.join("\n",
                "Port 22",
                "ListenAddress " + ip(i),
                "HostKey " + work.resolve("ssh_host_key"),
                "AuthorizedKeysFile " + work.resolve("authorized_keys"),
                "PermitRootLogin prohibit-password",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "StrictModes no",
                "UsePAM no",
                "MaxSessions 50",
                "MaxStartups 50",
                "Subsystem sftp /usr/lib/openssh/sftp-server",
                "PidFile " + work.resolve("sshd-" + i + ".pid"),
                ""));
            ProcessBuilder pb = new ProcessBuilder(helper.toString(), "exec", Integer.toString(i), "/usr/sbin/sshd", "-D",
                "-e", "-f", conf.toString());
            pb.redirectErrorStream(true);
            pb.redirectOutput(work.resolve("sshd-" + i + ".log").toFile());
            sshds.add(pb.start());
        }
        for (int i = 1; i <= count; i++) {
            int host = i;
            await(() -> ssh(host, Duration.ofSeconds(15), "true").exitCode() == 0, Duration.ofSeconds(60),
                "sshd on " + ip(host));
        }
    }

    Path key() {
        return work.resolve("id_ed25519");
    }

    static String ip(int host) {
        return SUBNET + (10 + host);
    }

    int count() {
        return count;
    }

    /** 1..count. */
    List<Integer> allHosts() {
        List<Integer> out = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            out.add(i);
        }
        return out;
    }

    Path work() {
        return work;
    }

    Path repo() {
        return repoRoot;
    }

    /** Runs a command on a host over ssh, as the deploy tooling reaches it. */
    Result ssh(int host, Duration timeout, String command) {
        return exec(timeout, List.of("ssh", "-i", key().toString(), "-o", "StrictHostKeyChecking=no", "-o",
            "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "ConnectTimeout=5", "-o", "LogLevel=ERROR",
            "root@" + ip(host), command), null);
    }

    /** Runs the namespace helper (partition, heal, status, ...). */
    Result helper(Duration timeout, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(helper.toString());
        cmd.addAll(List.of(args));
        return exec(timeout, cmd, null);
    }

    /** Runs a command inside a host's namespace (not through ssh): for clients placed on that host. */
    ProcessBuilder inHost(int host, List<String> command) {
        List<String> cmd = new ArrayList<>(List.of(helper.toString(), "exec", Integer.toString(host)));
        cmd.addAll(command);
        return new ProcessBuilder(cmd);
    }

    /** Runs one ansible-playbook from deploy/ansible with the given inventory. */
    Result ansible(Path inventory, String playbook, Duration timeout, String... extraArgs) {
        List<String> cmd = new ArrayList<>(List.of("ansible-playbook", "-i", inventory.toString(), playbook));
        cmd.addAll(List.of(extraArgs));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(repoRoot.resolve("deploy/ansible").toFile());
        pb.environment().put("ANSIBLE_HOST_KEY_CHECKING", "False");
        pb.environment().put("ANSIBLE_NOCOLOR", "1");
        pb.environment().put("ANSIBLE_CONFIG", repoRoot.resolve("deploy/ansible/ansible.cfg").toString());
        pb.environment().put("ANSIBLE_LOCAL_TEMP", work.resolve("ansible-local").toString());
        // Per-task timings in the output (cmd-N-ansible-*.out), and ssh control sockets of this run only: a master
        // left over from an earlier run (its namespaces gone) must never carry this run's connections.
        pb.environment().put("ANSIBLE_CALLBACKS_ENABLED", "ansible.posix.profile_tasks");
        pb.environment().put("ANSIBLE_SSH_CONTROL_PATH_DIR", work.resolve("ansible-cp").toString());
        return run(pb, timeout, "ansible-" + playbook.replace(".yml", ""));
    }

    /** Runs a process to completion (killed after timeout), with its output kept in files of the work dir. */
    Result run(ProcessBuilder pb, Duration timeout, String name) {
        int n = ++commands;
        Path out = work.resolve("cmd-" + n + "-" + name + ".out");
        Path err = work.resolve("cmd-" + n + "-" + name + ".err");
        return execTo(pb, timeout, out, err);
    }

    static Result exec(Duration timeout, List<String> cmd, Path dir) {
        try {
            Path out = Files.createTempFile("raftline-cmd", ".out");
            Path err = Files.createTempFile("raftline-cmd", ".err");
            try {
                ProcessBuilder pb = new ProcessBuilder(cmd);
                if (dir != null) {
                    pb.directory(dir.toFile());
                }
                return execTo(pb, timeout, out, err);
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            return new Result(-1, "", e.toString());
        }
    }

    private static Result execTo(ProcessBuilder pb, Duration timeout, Path out, Path err) {
        try {
            if (pb.redirectInput() == ProcessBuilder.Redirect.PIPE) {
                pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            }
            pb.redirectOutput(out.toFile());
            pb.redirectError(err.toFile());
            Process p = pb.start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                return new Result(-1, Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8) + "\n(timed out after " + timeout + ")");
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Result(-1, "", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "", "interrupted");
        }
    }

    static Result check(Result r, String what) {
        if (r.exitCode() != 0) {
            throw new AssertionError(what + " failed: " + r);
        }
        return r;
    }

    /** Polls the condition every 500 ms until it holds or the time is up (then fails naming what). */
    static void await(BooleanSupplier condition, Duration atMost, String what) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + atMost + " waiting for " + what);
            }
            TimeUnit.MILLISECONDS.sleep(500);
        }
    }

    /** The test passed: {@link #close()} deletes the work directory (kept after a failure, for its logs). */
    void passed() {
        passed = true;
    }

    @Override
    public void close() {
        // down kills every process in the namespaces (sshd, the nodes it started) and removes them.
        helper(Duration.ofMinutes(2), "down");
        for (Process p : sshds) {
            p.destroyForcibly();
        }
        lock.close();
        if (passed) {
            exec(Duration.ofMinutes(2), List.of("rm", "-rf", "--", work.toString()), null);
        } else {
            System.out.println("kept for diagnosis: " + work + " (node logs in hosts/rl-n*/var/log/raftline)");
        }
    }
}
