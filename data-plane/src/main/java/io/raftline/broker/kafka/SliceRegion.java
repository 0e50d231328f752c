package io.raftline.broker.kafka;

import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import io.raftline.broker.log.FileSlice;
import java.io.IOException;
import java.nio.channels.WritableByteChannel;

/**
 * A segment file's range as a Netty {@link FileRegion}: NIO's socket channel sends it with
 * {@link java.nio.channels.FileChannel#transferTo} (sendfile), from the page cache to the socket without a copy in
 * the JVM. The segment owns the file channel: releasing the region leaves it open (Netty's DefaultFileRegion would
 * close it).
 */
final class SliceRegion extends AbstractReferenceCounted implements FileRegion {

    private final FileSlice slice;
    private long transferred;

    SliceRegion(FileSlice slice) {
        this.slice = slice;
    }

    @Override
    public long position() {
        return slice.position();
    }

    @Override
    @Deprecated
    public long transfered() {
        return transferred;
    }

    @Override
    public long transferred() {
        return transferred;
    }

    @Override
    public long count() {
        return slice.size();
    }

    @Override
    public long transferTo(WritableByteChannel target, long position) throws IOException {
        long left = slice.size() - position;
        if (left < 0 || position < 0) {
            throw new IllegalArgumentException("position " + position + " outside a region of " + slice.size() + " bytes");
        }
        if (left == 0) {
            return 0;
        }
        long written = slice.channel().transferTo(slice.position() + position, left, target);
        if (written > 0) {
            transferred += written;
        } else if (slice.channel().size() < slice.position() + slice.size()) {
            // nothing sent because the file no longer holds the range: fail the write rather than spin on it
            throw new IOException("segment file shrank to " + slice.channel().size() + " bytes under a fetch of "
                + slice.size() + " bytes at " + slice.position());
        }
        return written;
    }

    @Override
    public SliceRegion retain() {
        super.retain();
        return this;
    }

    @Override
    public SliceRegion retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public SliceRegion touch() {
        return this;
    }

    @Override
    public SliceRegion touch(Object hint) {
        return this;
    }

    /** The segment's channel stays open: the log closes it (after file.delete.delay.ms once the segment is deleted). */
    @Override
    protected void deallocate() {
    }
}
