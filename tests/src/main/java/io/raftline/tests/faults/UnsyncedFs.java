package io.raftline.tests.faults;

import io.raftline.common.SystemTime;
import io.raftline.tests.cluster.DebianPackages;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A power-loss layer for a node's data directory: mounts {@code tests/fuse/unsyncedfs.c} (a FUSE filesystem that
 * mirrors a backing directory and keeps every file's unsynced writes in memory) so that {@link #crash()} drops what
 * was written and not fsynced, as a machine that loses power does. A power loss of a node is: kill -9 the node's
 * JVM, {@link #crash()} its mount, {@link #remount()}, start the node again. The model and its limits are in
 * {@code tests/fuse/README.md}: file data is lost unless fsynced; directory entries, renames and truncates survive.
 *
 * <p>The C program is compiled once per JVM into {@code tests/target/unsyncedfs/} (Debian's gcc, pkg-config,
 * libfuse3-dev and fuse3 are installed when missing). Each mount runs the daemon as a child process in the
 * foreground; its output goes to {@code <mountpoint>.unsyncedfs.log} beside the mount point. Mounts still mounted
 * when the JVM exits are unmounted by a shutdown hook. One instance is driven by one thread.
 */
public final class UnsyncedFs implements AutoCloseable {

    /** The mount's options, checked when made: {@code dirtyLimitMb} 1..1048576, {@code writebackMs} 0..86400000. */
    public record Options(int dirtyLimitMb, long writebackMs) {
        /** The daemon's defaults: 256 MiB of unsynced data at most, no age-based writeback. */
        public static final Options DEFAULT = new Options(256, 0);

        public Options {
            if (dirtyLimitMb < 1 || dirtyLimitMb > 1 << 20) {
                throw new IllegalArgumentException("dirtyLimitMb must be from 1 to 1048576, not " + dirtyLimitMb);
            }
            if (writebackMs < 0 || writebackMs > 86_400_000L) {
                throw new IllegalArgumentException("writebackMs must be from 0 (off) to 86400000, not " + writebackMs);
            }
        }
    }

    /** The filesystem type a mount of the daemon has in /proc/self/mountinfo. */
    public static final String FS_TYPE = "fuse.unsyncedfs";
    private static final Path FUSERMOUNT = Path.of("/usr/bin/fusermount3");
    private static final Duration MOUNT_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(5);
    /**
     * After an unmount, how long the daemon gets to exit on its own before SIGTERM. It does not when a copy of the
     * mount lives on in another mount namespace: {@code ip netns exec} (the campaign's hosts, other tests) copies
     * every mount into a new namespace for each process it starts, and those copies keep the filesystem alive.
     */
    private static final Duration UNMOUNTED_EXIT_TIMEOUT = Duration.ofSeconds(1);
    /** After a lazy unmount, how long the files still open on the mount get to close before SIGTERM. */
    private static final Duration LAZY_EXIT_TIMEOUT = Duration.ofSeconds(2);
    private static final Set<UnsyncedFs> OPEN = ConcurrentHashMap.newKeySet();
    private static Path binary;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> OPEN.forEach(UnsyncedFs::close), "unsyncedfs-unmount"));
    }

    private final Path backing;
    private final Path mountpoint;
    private final Options options;
    private final Path log;
    private final Path stats;
    private Process daemon;
    private Map<String, Long> lastStats = Map.of();

    private UnsyncedFs(Path backing, Path mountpoint, Options options) {
        this.backing = backing;
        this.mountpoint = mountpoint;
        this.options = options;
        this.log = mountpoint.resolveSibling(mountpoint.getFileName() + ".unsyncedfs.log");
        this.stats = mountpoint.resolveSibling(mountpoint.getFileName() + ".unsyncedfs.stats");
    }

    /** Mounts {@code backing} (created if missing) on {@code mountpoint} (created if missing) with the defaults. */
    public static UnsyncedFs mount(Path backing, Path mountpoint) throws IOException {
        return mount(backing, mountpoint, Options.DEFAULT);
    }

    /**
     * Mounts {@code backing} on {@code mountpoint} (both created if missing) and returns once the mount is in
     * /proc/self/mountinfo. Fails with the daemon's own error when it exits instead (bad option, mount refused).
     */
    public static UnsyncedFs mount(Path backing, Path mountpoint, Options options) throws IOException {
        Files.createDirectories(backing);
        Files.createDirectories(mountpoint);
        UnsyncedFs fs = new UnsyncedFs(backing.toRealPath(), mountpoint.toRealPath(), options);
        fs.start();
        return fs;
    }

    public Path backing() {
        return backing;
    }

    public Path mountpoint() {
        return mountpoint;
    }

    /** Whether the daemon runs and its mount is in place. */
    public boolean mounted() {
        return daemon != null && daemon.isAlive() && isMounted(mountpoint);
    }

    /**
     * Power loss: unmounts and lets the daemon exit without writing back what was not fsynced. Returns how many
     * unsynced bytes were dropped, or -1 when the daemon had to be killed and could not say (its log tells why).
     * When a process still holds files on the mount (a kill -9'd node whose files are being closed), the unmount
     * is lazy, and the daemon is stopped with SIGTERM if it has not exited after 2 s (1 s after a plain unmount, as
     * copies of the mount in other mount namespaces keep it serving); either way, writes that come after the crash
     * fail rather than land.
     */
    public long crash() throws IOException {
        if (daemon == null || !daemon.isAlive()) {
            throw new IllegalStateException("unsyncedfs on " + mountpoint + " is not running: remount() first");
        }
        stop();
        lastStats = readStats();
        return lastStats.getOrDefault("dropped_bytes", -1L);
    }

    /** What the daemon reported at the last crash: dropped_bytes, dropped_files, synced_bytes, written_back_bytes... */
    public Map<String, Long> lastStats() {
        return lastStats;
    }

    /** Mounts again after {@link #crash()}: the backing directory now holds what the disk held at the power loss. */
    public void remount() throws IOException {
        if (daemon != null && daemon.isAlive()) {
            throw new IllegalStateException("unsyncedfs on " + mountpoint + " is still mounted: crash() first");
        }
        start();
    }

    /** Unmounts (dropping unsynced data, as {@link #crash()} does) if mounted. */
    @Override
    public void close() {
        try {
            if (daemon != null && daemon.isAlive()) {
                stop();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            OPEN.remove(this);
        }
    }

    private void start() throws IOException {
        if (isMounted(mountpoint)) {
            throw new IllegalStateException(mountpoint + " is already a mount point");
        }
        long logStart = Files.exists(log) ? Files.size(log) : 0;
        List<String> command = List.of(binary().toString(), backing.toString(), mountpoint.toString(), "-f", "-o",
            "dirty_limit_mb=" + options.dirtyLimitMb() + ",writeback_ms=" + options.writebackMs() + ",stats="
                + escapeOption(stats.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        daemon = p;
        OPEN.add(this);
        boolean up = poll(() -> !p.isAlive() || isMounted(mountpoint), MOUNT_TIMEOUT);
        if (!p.isAlive() || !up) {
            p.destroyForcibly();
            waitFor(p, EXIT_TIMEOUT);
            OPEN.remove(this);
            throw new IOException("unsyncedfs did not mount " + backing + " on " + mountpoint
                + (up ? " (exit " + p.exitValue() + ")" : " within " + MOUNT_TIMEOUT.toSeconds() + " s") + ": "
                + logSince(logStart));
        }
    }

    /**
     * Unmounts and waits for the daemon: plain unmount, else lazy (busy), then SIGTERM, then SIGKILL. SIGTERM is as
     * good a power loss as the unmount: the daemon leaves its loop without writing back, and its closing /dev/fuse
     * aborts the connection, so every copy of the mount (lazily detached, or in another mount namespace) is dead.
     */
    private void stop() throws IOException {
        Process p = daemon;
        boolean lazy = fusermount(false) != 0;
        if (lazy) {
            fusermount(true);
        }
        if (!waitFor(p, lazy ? LAZY_EXIT_TIMEOUT : UNMOUNTED_EXIT_TIMEOUT)) {
            p.destroy();
            if (!waitFor(p, EXIT_TIMEOUT)) {
                p.destroyForcibly();
                waitFor(p, EXIT_TIMEOUT);
            }
        }
        if (isMounted(mountpoint)) {
            fusermount(true);   // a daemon that died leaves a dead mount behind
        }
        OPEN.remove(this);
        if (isMounted(mountpoint)) {
            throw new IOException("unsyncedfs on " + mountpoint + " is still mounted after its daemon exited");
        }
    }

    private int fusermount(boolean lazy) throws IOException {
        List<String> command = new ArrayList<>(List.of(FUSERMOUNT.toString(), lazy ? "-uz" : "-u", mountpoint.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!waitFor(p, EXIT_TIMEOUT)) {
            p.destroyForcibly();
            waitFor(p, EXIT_TIMEOUT);
            return -1;
        }
        return p.exitValue();
    }

    private Map<String, Long> readStats() throws IOException {
        if (!Files.exists(stats)) {
            return Map.of();
        }
        Map<String, Long> values = new LinkedHashMap<>();
        for (String line : Files.readAllLines(stats)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                values.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1).trim()));
            }
        }
        return Map.copyOf(values);
    }

    private String logSince(long offset) throws IOException {
        byte[] all = Files.exists(log) ? Files.readAllBytes(log) : new byte[0];
        int from = (int) Math.min(offset, all.length);
        return new String(all, from, all.length - from, StandardCharsets.UTF_8).strip();
    }

    /** libfuse splits -o on commas; a backslash escapes one. */
    private static String escapeOption(String value) {
        return value.replace("\\", "\\\\").replace(",", "\\,");
    }

    /**
     * The daemon, compiled from {@code tests/fuse/unsyncedfs.c} once per JVM (gcc -O2 -Wall against libfuse3) into
     * {@code tests/target/unsyncedfs/}; installs the Debian packages it needs first.
     */
    public static synchronized Path binary() throws IOException {
        if (binary != null) {
            return binary;
        }
        Optional<String> missing = DebianPackages.ensureFiles(List.of("/usr/bin/gcc", "/usr/bin/pkg-config",
            FUSERMOUNT.toString(), "/usr/include/fuse3/fuse.h"), "gcc", "pkg-config", "fuse3", "libfuse3-dev");
        if (missing.isPresent()) {
            throw new IllegalStateException("unsyncedfs needs gcc, pkg-config, fuse3 and libfuse3-dev: " + missing.get());
        }
        Path target = targetDirectory();
        Path source = target.getParent().resolve("fuse").resolve("unsyncedfs.c");
        if (!Files.isRegularFile(source)) {
            throw new IllegalStateException("no " + source + ": unsyncedfs is built from the tests module's sources");
        }
        Path dir = Files.createDirectories(target.resolve("unsyncedfs"));
        Path out = dir.resolve("unsyncedfs");
        Path temp = Files.createTempFile(dir, "unsyncedfs", ".tmp");
        Path output = Files.createTempFile(dir, "gcc", ".log");
        try {
            // one shell, for pkg-config's flags; the paths are ours (no quotes in them, checked)
            for (Path path : List.of(source, temp)) {
                if (path.toString().contains("'")) {
                    throw new IllegalStateException("cannot compile with a quote in the path " + path);
                }
            }
            String gcc = "gcc -O2 -Wall -o '" + temp + "' '" + source + "' $(pkg-config --cflags --libs fuse3)";
            Process p = new ProcessBuilder("/bin/sh", "-c", gcc).redirectErrorStream(true)
                .redirectOutput(output.toFile()).start();
            if (!waitFor(p, Duration.ofMinutes(2)) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("compiling " + source + " failed:\n" + Files.readString(output).strip());
            }
            // another JVM may be compiling the same file: each moves its own finished binary into place
            Files.move(temp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
            Files.deleteIfExists(output);
        }
        binary = out;
        return binary;
    }

    /** tests/target: where this class was loaded from is tests/target/classes (or a jar in tests/target). */
    private static Path targetDirectory() {
        try {
            Path location = Path.of(UnsyncedFs.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path target = location.getParent();
            if (target == null || !target.getFileName().toString().equals("target")) {
                throw new IllegalStateException("UnsyncedFs is not loaded from the tests module's target/ but " + location);
            }
            return target;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether /proc/self/mountinfo has {@code mountpoint} (a real path) mounted with the daemon's filesystem type. */
    public static boolean isMounted(Path mountpoint) {
        try {
            String where = mountpoint.toAbsolutePath().normalize().toString();
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] fields = line.split(" ");
                int dash = List.of(fields).indexOf("-");
                if (fields.length > 4 && dash > 4 && dash + 1 < fields.length && FS_TYPE.equals(fields[dash + 1])
                    && where.equals(unescapeMountinfo(fields[4]))) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** mountinfo writes space, tab, newline and backslash in paths as \ooo octal escapes. */
    private static String unescapeMountinfo(String field) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length()
                && field.substring(i + 1, i + 4).chars().allMatch(d -> d >= '0' && d <= '7')) {
                b.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static boolean waitFor(Process p, Duration timeout) {
        try {
            return p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !p.isAlive();
        }
    }

    /** Polls every 20 ms until {@code condition} holds (true) or {@code timeout} passes (false). */
    private static boolean poll(BooleanSupplier condition, Duration timeout) {
        long deadline = SystemTime.INSTANCE.nanoseconds() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (SystemTime.INSTANCE.nanoseconds() - deadline > 0) {
                return false;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return condition.getAsBoolean();
            }
        }
        return true;
    }
}
