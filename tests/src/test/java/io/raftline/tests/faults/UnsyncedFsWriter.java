package io.raftline.tests.faults;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The writing process of {@link UnsyncedFsTest}, a JVM of its own as a node is, so that its files are closed (and
 * its mmap pages handed to the filesystem) by its exit or its kill -9, not by the test.
 * <ul>
 *   <li>{@code mmap FILE SIZE force|noforce}: sets FILE's length to SIZE, maps it, fills it with {@link #mmapByte},
 *       forces the mapping or not, and exits;</li>
 *   <li>{@code append FILE RECORDS FORCED}: appends RECORDS records of {@link #RECORD_BYTES} bytes with one
 *       FileChannel write each, forcing the channel after the first FORCED, prints "ready" and waits to be killed.</li>
 * </ul>
 */
public final class UnsyncedFsWriter {

    static final int RECORD_BYTES = 100;

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
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }
}
