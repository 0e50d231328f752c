package io.raftline.broker.kafka;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits a Kafka connection's bytes into request frames: a 4-byte big-endian size, then that many bytes. The size is
 * checked against {@code socket.request.max.bytes} as soon as its four bytes are in, before anything is allocated for
 * the frame: a frame above it, or a negative size, closes the connection with one log line (as Kafka's broker does;
 * the bytes that follow cannot be trusted to be a frame). Bytes are only ever held as they arrive from the socket.
 * Each frame is passed on as a retained slice without its size prefix.
 */
final class KafkaFrameDecoder extends ByteToMessageDecoder {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaFrameDecoder.class);

    private final int maxFrameBytes;
    private boolean refused;

    KafkaFrameDecoder(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (refused) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= 4) {
            int size = in.getInt(in.readerIndex());
            String problem = FrameSize.problem(size, maxFrameBytes);
            if (problem != null) {
                refused = true;
                in.skipBytes(in.readableBytes());
                LOG.warn("kafka listener: closing the connection from {}: {}", ctx.channel().remoteAddress(), problem);
                ctx.close();
                return;
            }
            if (in.readableBytes() < 4 + size) {
                return;
            }
            in.skipBytes(4);
            out.add(in.readRetainedSlice(size));
        }
    }
}
