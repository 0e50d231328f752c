package io.raftline.broker.kafka;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.raftline.broker.log.FileSlice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * One answer on a Kafka connection as the Netty messages to write, in order: the 4-byte size, the header and the body
 * written by Kafka's generated classes into one pooled buffer, except a fetch's {@link StoredRecords}. With
 * {@code zeroCopy} (a connection without TLS) those follow as {@link SliceRegion}s, which the socket sends from the
 * files with sendfile, as Kafka sends fetches; otherwise (TLS must see the bytes) they are read from the files straight
 * into the buffer, with no copy in between.
 */
final class ResponseFrame implements Writable {

    private final ByteBuf buf;
    private final boolean zeroCopy;
    private final List<Object> parts = new ArrayList<>();
    /** Where the bytes not yet cut into a part start. */
    private int mark;

    private ResponseFrame(ByteBuf buf, boolean zeroCopy) {
        this.buf = buf;
        this.zeroCopy = zeroCopy;
    }

    /**
     * The messages of one answer (ByteBufs and FileRegions, each with one reference for the caller to write or
     * release).
     *
     * @throws UncheckedIOException if stored records cannot be read from their file (only without zeroCopy)
     */
    static List<Object> encode(ByteBufAllocator alloc, ResponseHeaderData header, short headerVersion, ApiMessage body,
                               short version, boolean zeroCopy) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        MessageSizeAccumulator size = new MessageSizeAccumulator();
        header.addSize(size, cache, headerVersion);
        body.addSize(size, cache, version);
        int buffered = Integer.BYTES + (zeroCopy ? size.sizeExcludingZeroCopy() : size.totalSize());
        ResponseFrame frame = new ResponseFrame(alloc.buffer(buffered), zeroCopy);
        try {
            frame.buf.writeInt(size.totalSize());
            header.write(frame, cache, headerVersion);
            body.write(frame, cache, version);
            frame.cut();
            return frame.parts;
        } catch (RuntimeException e) {
            frame.parts.forEach(ReferenceCountUtil::release);
            throw e;
        } finally {
            frame.buf.release();
        }
    }

    /** Closes the bytes written since the last cut into a part of their own (sharing the buffer). */
    private void cut() {
        if (buf.writerIndex() > mark) {
            parts.add(buf.retainedSlice(mark, buf.writerIndex() - mark));
            mark = buf.writerIndex();
        }
    }

    @Override
    public void writeRecords(BaseRecords records) {
        if (records instanceof StoredRecords stored) {
            if (zeroCopy) {
                cut();
                stored.slices().forEach(slice -> parts.add(new SliceRegion(slice)));
            } else {
                stored.slices().forEach(this::readInto);
            }
        } else if (records instanceof MemoryRecords memory) {
            writeByteBuffer(memory.buffer());
        } else {
            throw new UnsupportedOperationException("cannot write records of type " + records.getClass().getName());
        }
    }

    /** Reads the slice's bytes straight into the buffer, with FileSlice's own read loop. */
    private void readInto(FileSlice slice) {
        buf.ensureWritable(slice.size());
        try {
            slice.readInto(buf.nioBuffer(buf.writerIndex(), slice.size()));
        } catch (IOException e) {
            throw new UncheckedIOException("reading the log failed", e);
        }
        buf.writerIndex(buf.writerIndex() + slice.size());
    }

    @Override
    public void writeByte(byte val) {
        buf.writeByte(val);
    }

    @Override
    public void writeShort(short val) {
        buf.writeShort(val);
    }

    @Override
    public void writeInt(int val) {
        buf.writeInt(val);
    }

    @Override
    public void writeLong(long val) {
        buf.writeLong(val);
    }

    @Override
    public void writeDouble(double val) {
        buf.writeDouble(val);
    }

    @Override
    public void writeByteArray(byte[] arr) {
        buf.writeBytes(arr);
    }

    @Override
    public void writeByteBuffer(ByteBuffer src) {
        buf.writeBytes(src.duplicate());
    }

    @Override
    public void writeUnsignedVarint(int i) {
        int v = i;
        while ((v & ~0x7F) != 0) {
            buf.writeByte((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf.writeByte(v);
    }

    @Override
    public void writeVarint(int i) {
        writeUnsignedVarint((i << 1) ^ (i >> 31));
    }

    @Override
    public void writeVarlong(long i) {
        long v = (i << 1) ^ (i >> 63);
        while ((v & ~0x7FL) != 0) {
            buf.writeByte((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        buf.writeByte((int) v);
    }
}
