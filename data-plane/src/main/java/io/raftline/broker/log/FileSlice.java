package io.raftline.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A byte range of a segment file holding whole batches, handed to the network without being decoded. The channel
 * stays open for at least {@code file.delete.delay.ms} after its segment is deleted, so a slice taken just before a
 * retention or truncation can still be sent. {@code records}: how many records its batch headers count (read while
 * the slice was found, so a caller that counts records need not read the bytes).
 */
public record FileSlice(FileChannel channel, long position, int size, int records) {

    /** Sends the bytes with {@code transferTo} (zero-copy where the OS allows); returns bytes written. */
    public long writeTo(WritableByteChannel target) throws IOException {
        long done = 0;
        while (done < size) {
            long n = channel.transferTo(position + done, size - done, target);
            if (n <= 0) {
                throw new IOException("segment file ended at " + (position + done) + " while sending " + size + " bytes from " + position);
            }
            done += n;
        }
        return done;
    }

    /** Reads the bytes into {@code dst} (which must have {@code size} bytes remaining). */
    public void readInto(ByteBuffer dst) throws IOException {
        int end = dst.position() + size;
        ByteBuffer window = dst.duplicate();
        window.limit(end);
        long pos = position;
        while (window.hasRemaining()) {
            int n = channel.read(window, pos);
            if (n < 0) {
                throw new IOException("segment file ended at " + pos + " while reading " + size + " bytes from " + position);
            }
            pos += n;
        }
        dst.position(end);
    }
}
