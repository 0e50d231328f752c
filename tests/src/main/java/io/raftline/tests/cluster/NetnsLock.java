package io.raftline.tests.cluster;

import io.raftline.common.SystemTime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The machine-wide lock that keeps tests which make network-namespace hosts (one 10.77.0.0/24 segment per machine) from
 * running at once: held from taking the hosts up until they are down.
 */
public final class NetnsLock implements AutoCloseable {

    private static final Path LOCK_FILE = Path.of("/tmp/raftline-netns-test.lock");

    private final FileChannel channel;
    private final FileLock lock;

    private NetnsLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes the lock, waiting at most 15 minutes for another such test. */
    public static NetnsLock acquire() throws IOException, InterruptedException {
        FileChannel channel = FileChannel.open(LOCK_FILE, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        long deadline = SystemTime.INSTANCE.nanoseconds() + Duration.ofMinutes(15).toNanos();
        FileLock lock;
        while ((lock = channel.tryLock()) == null) {
            if (SystemTime.INSTANCE.nanoseconds() > deadline) {
                channel.close();
                throw new IllegalStateException("another test holds " + LOCK_FILE + " for more than 15 minutes");
            }
            TimeUnit.SECONDS.sleep(2);
        }
        return new NetnsLock(channel, lock);
    }

    @Override
    public void close() {
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot release " + LOCK_FILE, e);
        }
    }
}
