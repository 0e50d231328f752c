package io.raftline.tests.faults;

import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogConfig;
import io.raftline.common.SystemTime;
import io.raftline.record.CompressionType;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The writing process of {@link UnsyncedFsTest}, a JVM of its own as a node is, so that its files are closed (and
 * its mmap pages handed to the filesystem) by its exit or its kill -9, not by the test.
 * <ul>
 *   <li>{@code mmap FILE SIZE force|noforce}: sets FILE's length to SIZE, maps it, fills it with {@link #mmapByte},
 *       forces the mapping or not, and exits;</li>
 *   <li>{@code append FILE RECORDS FORCED}: appends RECORDS records of {@link #RECORD_BYTES} bytes with one
 *       FileChannel write each, forcing the channel after the first FORCED, prints "ready" and waits to be killed;</li>
 *   <li>{@code raftlog DIR BATCHES FLUSHED}: appends BATCHES batches of {@link #BATCH_RECORDS} records to a Raftline
 *       {@link Log} in DIR (the broker's own segments and mmap'd indexes, default flush policy), {@link Log#flush()}es
 *       it after the first FLUSHED, prints "ready" and waits to be killed;</li>
 *   <li>{@code recover DIR}: opens (recovers) that log, as a restarted node does, and prints its log end offset.</li>
 * </ul>
 */
public final class UnsyncedFsWriter {

    static final int RECORD_BYTES = 100;
    static final int BATCH_RECORDS = 10;

    private UnsyncedFsWriter() {
    }

    static byte mmapByte(int i) {
        return (byte) ('a' + i % 26);
    }

    /** Record {@code i}: its number, padded with dots to {@link #RECORD_BYTES} and ended by a newline. */
    static byte[] record(int i) {
        StringBuilder b = new StringBuilder("record-").append(i).append(' ');
        while (b.length() < RECORD_BYTES - 1) {
            b.append('.');
        }
        return b.append('\n').toString().getBytes(StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[1]);
        switch (args[0]) {
            case "mmap" -> {
                int size = Integer.parseInt(args[2]);
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                    raf.setLength(size);
                    MappedByteBuffer map = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, size);
                    for (int i = 0; i < size; i++) {
                        map.put(i, mmapByte(i));
                    }
                    if (args[3].equals("force")) {
                        map.force();
                    }
                }
                System.out.println("done");
            }
            case "append" -> {
                int records = Integer.parseInt(args[2]);
                int forced = Integer.parseInt(args[3]);
                FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND);
                for (int i = 0; i < records; i++) {
                    channel.write(ByteBuffer.wrap(record(i)));
                    if (i + 1 == forced) {
                        channel.force(false);
                    }
                }
                System.out.println("ready");
                System.out.flush();
                System.in.read();   // the test kills this JVM with its file open, as a node is
            }
            case "raftlog" -> {
                int batches = Integer.parseInt(args[2]);
                int flushed = Integer.parseInt(args[3]);
                ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
                Log log = openLog(file, scheduler);
                for (int i = 0; i < batches; i++) {
                    log.appendAsLeader(batch(i), 1);
                    if (i + 1 == flushed) {
                        log.flush();
                    }
                }
                System.out.println("ready");
                System.out.flush();
                System.in.read();
            }
            case "recover" -> {
                ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
                Log log = openLog(file, scheduler);
                System.out.println("logEndOffset " + log.logEndOffset());
                log.close();
                scheduler.shutdownNow();
            }
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    /** A Raftline partition log in {@code dir}, recovered when it was not closed cleanly; 1 MiB segments. */
    static Log openLog(Path dir, ScheduledExecutorService scheduler) throws IOException {
        LogConfig config = LogConfig.fromProperties(Map.of(), Map.of(LogConfig.SEGMENT_BYTES, Integer.toString(1 << 20)));
        return Log.open(dir, "t", 0, new byte[16], config, 0, false, SystemTime.INSTANCE, scheduler, (log, e) -> {
            throw new IllegalStateException("I/O error in the log", e);
        });
    }

    /** Batch {@code i}: {@link #BATCH_RECORDS} records of {@link #RECORD_BYTES} bytes. */
    static ByteBuffer batch(int i) {
        RecordBatchBuilder b = new RecordBatchBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1,
            BATCH_RECORDS * (RECORD_BYTES + 64));
        for (int r = 0; r < BATCH_RECORDS; r++) {
            b.append(1_700_000_000_000L + i, null, record(i * BATCH_RECORDS + r), null);
        }
        return b.build();
    }
}
