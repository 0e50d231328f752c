package io.raftline.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.raftline.tests.cluster.DebianPackages;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The power-loss layer on real FUSE mounts: what was written and not fsynced is gone after {@link UnsyncedFs#crash()},
 * what was fsynced (FileChannel.force, MappedByteBuffer.force) stays, and directory entries stay. Every test first
 * checks that its directory is an unsyncedfs mount in /proc/self/mountinfo, and the first one that the unsynced
 * data is not in the backing directory before the crash: none of them can pass on a plain directory.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnsyncedFsTest {

    @TempDir
    Path tmp;

    Path backing;
    Path mnt;
    UnsyncedFs fs;

    @BeforeEach
    void paths() {
        backing = tmp.resolve("backing");
        mnt = tmp.resolve("mnt");
    }

    @AfterEach
    void unmount() {
        if (fs != null) {
            fs.close();
        }
    }

    private UnsyncedFs mount(UnsyncedFs.Options options) throws IOException {
        fs = UnsyncedFs.mount(backing, mnt, options);
        assertThat(UnsyncedFs.isMounted(mnt)).as("%s is an unsyncedfs mount in /proc/self/mountinfo", mnt).isTrue();
        assertThat(Files.readString(Path.of("/proc/self/mountinfo"))).contains(" " + mnt.toRealPath() + " ")
            .contains(" - " + UnsyncedFs.FS_TYPE + " ");
        return fs;
    }

    private static void write(Path file, byte[] data, boolean force) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.APPEND)) {
            ByteBuffer buf = ByteBuffer.wrap(data);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            if (force) {
                ch.force(true);
            }
        }
    }

    private static byte[] bytes(long seed, int size) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void unsyncedWritesAreReadableBeforeTheCrashAndGoneAfterItWhileForcedOnesStay() throws Exception {
        mount(UnsyncedFs.Options.DEFAULT);
        byte[] synced = bytes(1, 3000);
        byte[] unsynced = bytes(2, 5000);
        write(mnt.resolve("synced"), synced, true);
        write(mnt.resolve("unsynced"), unsynced, false);

        // the program sees its own writes (read back through a new descriptor, and the size)...
        assertThat(Files.readAllBytes(mnt.resolve("unsynced"))).isEqualTo(unsynced);
        assertThat(Files.size(mnt.resolve("unsynced"))).isEqualTo(5000);
        // ...which the "disk" does not hold yet
        assertThat(Files.size(backing.resolve("unsynced"))).isZero();
        assertThat(Files.readAllBytes(backing.resolve("synced"))).isEqualTo(synced);

        assertThat(fs.crash()).as("unsynced bytes dropped").isEqualTo(5000);
        assertThat(fs.lastStats()).containsEntry("dropped_files", 1L).containsEntry("synced_bytes", 3000L);
        assertThat(UnsyncedFs.isMounted(mnt)).isFalse();
        fs.remount();
        assertThat(Files.readAllBytes(mnt.resolve("synced"))).isEqualTo(synced);
        assertThat(mnt.resolve("unsynced")).as("created, so its directory entry survives").exists();
        assertThat(Files.size(mnt.resolve("unsynced"))).as("nothing of it was synced").isZero();
    }

    @Test
    void aPartlySyncedFileKeepsExactlyItsSyncedPrefix() throws Exception {
        mount(UnsyncedFs.Options.DEFAULT);
        Path file = mnt.resolve("log");
        byte[] first = bytes(3, 10_001);
        byte[] second = bytes(4, 7_003);
        write(file, first, true);
        write(file, second, false);
        assertThat(Files.readAllBytes(file)).isEqualTo(concat(first, second));

        assertThat(fs.crash()).isEqualTo(second.length);
        fs.remount();
        assertThat(Files.readAllBytes(file)).isEqualTo(first);
    }

    @Test
    void truncateSeesUnsyncedDataAndIsItselfDurable() throws Exception {
        mount(UnsyncedFs.Options.DEFAULT);
        Path file = mnt.resolve("f");
        byte[] data = bytes(5, 10_000);
        write(file, data, false);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(3_000);
        }
        assertThat(Files.readAllBytes(file)).isEqualTo(Arrays.copyOf(data, 3_000));

        assertThat(fs.crash()).as("the unsynced bytes left after the truncate").isEqualTo(3_000);
        fs.remount();
        // the size is metadata and survived; the data under it was never synced
        assertThat(Files.readAllBytes(file)).isEqualTo(new byte[3_000]);
    }

    @Test
    void createMkdirAndRenameSurviveWithoutAnyFsync() throws Exception {
        mount(UnsyncedFs.Options.DEFAULT);
        Files.createDirectories(mnt.resolve("dir/sub"));
        write(mnt.resolve("dir/sub/a.tmp"), bytes(6, 100), false);
        Files.move(mnt.resolve("dir/sub/a.tmp"), mnt.resolve("dir/sub/a"));
        write(mnt.resolve("dir/b"), new byte[0], false);
        Files.delete(mnt.resolve("dir/b"));

        assertThat(fs.crash()).isEqualTo(100);
        fs.remount();
        assertThat(mnt.resolve("dir/sub/a")).exists();
        assertThat(mnt.resolve("dir/sub/a.tmp")).doesNotExist();
        assertThat(mnt.resolve("dir/b")).doesNotExist();
    }

    @Test
    void aForcedMappedBufferSurvivesAndAnUnforcedOneDoesNot() throws Exception {
        mount(UnsyncedFs.Options.DEFAULT);
        int size = 3 * 4096 + 10;
        runWriter("mmap", mnt.resolve("forced").toString(), String.valueOf(size), "force").waitForExit();
        runWriter("mmap", mnt.resolve("unforced").toString(), String.valueOf(size), "noforce").waitForExit();
        byte[] expected = new byte[size];
        for (int i = 0; i < size; i++) {
            expected[i] = UnsyncedFsWriter.mmapByte(i);
        }
        assertThat(Files.readAllBytes(mnt.resolve("unforced"))).as("seen before the crash").isEqualTo(expected);

        fs.crash();
        fs.remount();
        assertThat(Files.readAllBytes(mnt.resolve("forced"))).isEqualTo(expected);
        // setLength is a truncate, durable at once; the mapped writes under it were lost
        assertThat(Files.readAllBytes(mnt.resolve("unforced"))).isEqualTo(new byte[size]);
    }

    @Test
    void aKilledAppenderLosesExactlyItsUnforcedTail() throws Exception {
        mount(UnsyncedFs.Options.DEFAULT);
        Path file = mnt.resolve("00000000000000000000.log");
        int records = 2_000;
        int forced = 1_234;
        Writer writer = runWriter("append", file.toString(), String.valueOf(records), String.valueOf(forced));
        writer.awaitLine("ready");
        assertThat(Files.size(file)).isEqualTo((long) records * UnsyncedFsWriter.RECORD_BYTES);
        writer.process.destroyForcibly();   // kill -9, then the power goes
        assertThat(writer.process.waitFor(10, TimeUnit.SECONDS)).isTrue();

        assertThat(fs.crash()).isEqualTo((long) (records - forced) * UnsyncedFsWriter.RECORD_BYTES);
        fs.remount();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < forced; i++) {
            expected.write(UnsyncedFsWriter.record(i));
        }
        assertThat(Files.readAllBytes(file)).isEqualTo(expected.toByteArray());
    }

    @Test
    void aCrashWhileAProcessStillHoldsItsFilesOpenStillDropsTheUnsyncedData() throws Exception {
        mount(UnsyncedFs.Options.DEFAULT);
        Path file = mnt.resolve("held");
        Writer writer = runWriter("append", file.toString(), "500", "100");
        try {
            writer.awaitLine("ready");
            // the mount is busy: the unmount is lazy, then the daemon is stopped (SIGTERM) with the file still open
            assertThat(fs.crash()).isEqualTo(400L * UnsyncedFsWriter.RECORD_BYTES);
            assertThat(UnsyncedFs.isMounted(mnt)).isFalse();
        } finally {
            writer.process.destroyForcibly();
            writer.process.waitFor(10, TimeUnit.SECONDS);
        }
        fs.remount();
        assertThat(Files.size(file)).isEqualTo(100L * UnsyncedFsWriter.RECORD_BYTES);
    }

    @Test
    void aCopyOfTheMountInAnotherMountNamespaceIsDeadAfterTheCrash() throws Exception {
        assertThat(DebianPackages.ensure(List.of("/usr/bin/unshare", "/usr/bin/nsenter"), "util-linux")).isEmpty();
        mount(UnsyncedFs.Options.DEFAULT);
        write(mnt.resolve("f"), bytes(9, 2000), false);
        // what ip netns exec does for each process it starts: a new mount namespace, a copy of every mount
        Process holder = new ProcessBuilder("/usr/bin/unshare", "--mount", "--propagation", "private", "sleep", "60")
            .redirectErrorStream(true).start();
        try {
            Path holderMounts = Path.of("/proc/" + holder.pid() + "/mountinfo");
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.isReadable(holderMounts)
                && Files.readString(holderMounts).contains(" " + mnt.toRealPath() + " ")
                && !Files.readSymbolicLink(Path.of("/proc/" + holder.pid() + "/ns/mnt"))
                    .equals(Files.readSymbolicLink(Path.of("/proc/self/ns/mnt"))));

            assertThat(fs.crash()).as("the copy kept the daemon serving: it was stopped").isEqualTo(2000);
            Process read = new ProcessBuilder("/usr/bin/nsenter", "--target", String.valueOf(holder.pid()), "--mount",
                "cat", mnt.resolve("f").toString()).redirectErrorStream(true).start();
            assertThat(read.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(new String(read.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .as("the copy in the other namespace").contains("Transport endpoint is not connected");
        } finally {
            holder.destroyForcibly();
            holder.waitFor(10, TimeUnit.SECONDS);
        }
        fs.remount();
        assertThat(Files.size(mnt.resolve("f"))).isZero();
    }

    @Test
    void aRaftlineLogKilledAndPoweredOffRecoversToItsLastFlush() throws Exception {
        mount(UnsyncedFs.Options.DEFAULT);
        Path dir = mnt.resolve("t-0");
        int batches = 300;
        int flushed = 170;
        Writer writer = runWriter("raftlog", dir.toString(), String.valueOf(batches), String.valueOf(flushed));
        writer.awaitLine("ready");
        writer.process.destroyForcibly();
        assertThat(writer.process.waitFor(10, TimeUnit.SECONDS)).isTrue();

        long dropped = fs.crash();
        assertThat(dropped).as("the unflushed batches, at least").isGreaterThanOrEqualTo(
            (long) (batches - flushed) * UnsyncedFsWriter.BATCH_RECORDS * UnsyncedFsWriter.RECORD_BYTES);
        fs.remount();
        // the node restarts: a JVM of its own, so that the test JVM holds no mapping of the log's indexes
        Writer restarted = runWriter("recover", dir.toString());
        assertThat(restarted.awaitLineStartingWith("logEndOffset ")).as("recovered to the flushed offset")
            .isEqualTo("logEndOffset " + (long) flushed * UnsyncedFsWriter.BATCH_RECORDS);
        assertThat(restarted.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void pastTheDirtyLimitTheOldestDataIsWrittenBackAndSurvives() throws Exception {
        mount(new UnsyncedFs.Options(1, 0));
        Path file = mnt.resolve("big");
        byte[] data = bytes(7, 4 << 20);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            for (int off = 0; off < data.length; off += 65536) {
                ch.write(ByteBuffer.wrap(data, off, 65536));
            }
        }
        assertThat(Files.readAllBytes(file)).isEqualTo(data);
        long onDisk = Files.size(backing.resolve("big"));
        assertThat(onDisk).as("written back to the backing file").isGreaterThanOrEqualTo(3L << 20);

        long dropped = fs.crash();
        assertThat(dropped).as("at most the limit is lost").isPositive().isLessThanOrEqualTo(1L << 20);
        assertThat(fs.lastStats().get("written_back_bytes")).isEqualTo(data.length - dropped);
        fs.remount();
        assertThat(Files.readAllBytes(file)).isEqualTo(Arrays.copyOf(data, (int) (data.length - dropped)));
    }

    @Test
    void ageBasedWritebackWritesOldDataBack() throws Exception {
        mount(new UnsyncedFs.Options(256, 200));
        byte[] data = bytes(8, 1000);
        write(mnt.resolve("aged"), data, false);
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.size(backing.resolve("aged")) == 1000);
        assertThat(fs.crash()).isZero();
        fs.remount();
        assertThat(Files.readAllBytes(mnt.resolve("aged"))).isEqualTo(data);
    }

    @Test
    void badOptionsGetOneClearErrorAndMountNothing() throws Exception {
        assertThatThrownBy(() -> new UnsyncedFs.Options(0, 0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("dirtyLimitMb must be from 1 to 1048576, not 0");
        Files.createDirectories(backing);
        Files.createDirectories(mnt);
        assertThat(runDaemon("-o", "dirty_limit_mb=lots"))
            .containsExactly("unsyncedfs: dirty_limit_mb must be a whole number from 1 to 1048576, not 'lots'");
        assertThat(runDaemon("-o", "writeback_ms=-5"))
            .containsExactly("unsyncedfs: writeback_ms must be a whole number from 0 to 86400000, not '-5'");
        assertThat(runDaemon("-o", "no_such_option")).containsExactly("fuse: unknown option(s): `-o no_such_option'");
        assertThat(UnsyncedFs.isMounted(mnt)).isFalse();
    }

    /** Runs the daemon with {@code options} expecting it to refuse them; returns its output lines. */
    private List<String> runDaemon(String... options) throws Exception {
        List<String> command = new ArrayList<>(List.of(UnsyncedFs.binary().toString(), backing.toString(),
            mnt.toString(), "-f"));
        command.addAll(List.of(options));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("the daemon exits on a bad option").isTrue();
        List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertThat(p.exitValue()).as("exit of %s: %s", command, lines).isNotZero();
        return lines;
    }

    private record Writer(Process process, BufferedReader out) {
        void awaitLine(String line) throws IOException {
            String read;
            while ((read = out.readLine()) != null) {
                if (read.equals(line)) {
                    return;
                }
            }
            throw new AssertionError("the writer exited (" + process.exitValue() + ") before printing " + line);
        }

        String awaitLineStartingWith(String prefix) throws IOException {
            String read;
            while ((read = out.readLine()) != null) {
                if (read.startsWith(prefix)) {
                    return read;
                }
            }
            throw new AssertionError("the writer exited (" + process.exitValue() + ") before printing " + prefix + "...");
        }

        void waitForExit() throws Exception {
            awaitLine("done");
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).isZero();
        }
    }

    private static Writer runWriter(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx64m", "-cp", System.getProperty("java.class.path"), UnsyncedFsWriter.class.getName()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new Writer(p, new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
    }
}
