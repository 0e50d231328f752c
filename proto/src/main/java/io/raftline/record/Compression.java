package io.raftline.record;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import io.raftline.protocol.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.xerial.snappy.SnappyInputStream;
import org.xerial.snappy.SnappyOutputStream;

/**
 * Compresses and decompresses a whole records section. The stream formats (part of the batch format, see
 * BATCH_FORMAT.md): gzip = RFC 1952 (JDK); snappy = snappy-java's framed stream ({@code SnappyOutputStream},
 * as Kafka); lz4 = the LZ4 frame format with 64 KiB independent blocks; zstd = a standard zstd frame, level 3.
 */
final class Compression {

    private static final int ZSTD_LEVEL = 3;
    private static final int STREAM_BUFFER_BYTES = 16 * 1024;

    private Compression() {
    }

    /** Appends the compressed form of {@code src[off, off+len)} to {@code out}. */
    static void compress(CompressionType type, byte[] src, int off, int len, GrowableBytes out) {
        try (OutputStream stream = wrap(type, out)) {
            stream.write(src, off, len);
        } catch (IOException e) {
            // The sink is memory: an IOException here is a codec bug, not an operating error.
            throw new IllegalStateException("compressing with " + type + " failed", e);
        }
    }

    private static OutputStream wrap(CompressionType type, OutputStream out) throws IOException {
        switch (type) {
            case GZIP:
                return new GZIPOutputStream(out, STREAM_BUFFER_BYTES);
            case SNAPPY:
                return new SnappyOutputStream(out, STREAM_BUFFER_BYTES * 2);
            case LZ4:
                return new LZ4FrameOutputStream(out, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB);
            case ZSTD:
                return new ZstdOutputStreamNoFinalizer(out, ZSTD_LEVEL);
            default:
                throw new IllegalArgumentException("not a compressing codec: " + type);
        }
    }

    /**
     * Decompresses {@code src[position, limit)} completely. The output grows with what the codec really produces,
     * so a corrupt size field cannot make it allocate more than the data expands to.
     *
     * @param sizeHint a guess of the decompressed size (e.g. a multiple of the input)
     * @throws RecordFormatException CORRUPT_MESSAGE if the codec rejects the bytes
     */
    static ByteBuffer decompress(CompressionType type, ByteBuffer src, int sizeHint) {
        GrowableBytes out = new GrowableBytes(sizeHint);
        try (InputStream in = unwrap(type, new BufferInputStream(src))) {
            while (true) {
                out.ensureRemaining(STREAM_BUFFER_BYTES);
                int n = in.read(out.array(), out.size(), out.array().length - out.size());
                if (n < 0) {
                    break;
                }
                out.setSize(out.size() + n);
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof RecordFormatException) {
                throw (RecordFormatException) e;
            }
            throw new RecordFormatException(ErrorCode.CORRUPT_MESSAGE, "cannot decompress " + type + " records: " + e, e);
        }
        return out.toByteBuffer();
    }

    private static InputStream unwrap(CompressionType type, InputStream in) throws IOException {
        switch (type) {
            case GZIP:
                return new GZIPInputStream(in, STREAM_BUFFER_BYTES);
            case SNAPPY:
                return new SnappyInputStream(in);
            case LZ4:
                return new LZ4FrameInputStream(in);
            case ZSTD:
                return new ZstdInputStreamNoFinalizer(in);
            default:
                throw new IllegalArgumentException("not a compressing codec: " + type);
        }
    }

    /** Reads a buffer's remaining bytes with absolute gets (the buffer's position is not moved). */
    private static final class BufferInputStream extends InputStream {
        private final ByteBuffer buf;
        private int pos;
        private final int end;

        BufferInputStream(ByteBuffer buf) {
            this.buf = buf;
            this.pos = buf.position();
            this.end = buf.limit();
        }

        @Override
        public int read() {
            return pos < end ? buf.get(pos++) & 0xff : -1;
        }

        @Override
        public int read(byte[] dst, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (pos >= end) {
                return -1;
            }
            int n = Math.min(len, end - pos);
            buf.get(pos, dst, off, n);
            pos += n;
            return n;
        }

        @Override
        public int available() {
            return end - pos;
        }
    }
}
