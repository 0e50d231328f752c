package io.raftline.grpc;

import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;

/**
 * The Netty buffer allocators of the data path's gRPC transports, set as their {@code ChannelOption.ALLOCATOR}
 * instead of the one gRPC builds (a {@code PooledByteBufAllocator} forced to 2 MiB chunks).
 *
 * <p>Why: a fetch is megabytes of buffers allocated at once and released together. With gRPC's allocator the
 * transports kept getting fresh direct memory instead of reusing what the previous response released:
 * {@code ByteBuffer.allocateDirect} zeroing it, page faults on first touch, glibc trimming and regrowing its heap
 * ({@code madvise}, {@code brk}). Profiled with perf (1 node, 1,000,000 x 1 KiB consumed) that was ~45% of the
 * broker's request threads (the framer's buffers for the response) and of the consumer's event loop (the HTTP/2
 * reader's buffers), plus the consumer's gRPC executor freeing them. Measured per side, not derived:
 * <ul>
 *   <li>{@link #server()}, Netty's adaptive allocator: the broker's zeroing went from 48% of its request threads'
 *   samples to 3% (and its event loop's {@code madvise} from 13% to none); on the consumer it did not help;</li>
 *   <li>{@link #channel()}, a pooled allocator with Netty's default chunk size (4 MiB): the consumer's event loop
 *   no longer shows the zeroing at all.</li>
 * </ul>
 *
 * <p>One instance of each per process, shared by every transport that uses it (both are thread-safe).
 */
public final class TransportAllocator {

    private static final ByteBufAllocator SERVER = new AdaptiveByteBufAllocator(true, true);
    private static final ByteBufAllocator CHANNEL = new PooledByteBufAllocator(true);

    private TransportAllocator() {
    }

    /** For the broker's server: the child channels, whose buffers the request threads fill with responses. */
    public static ByteBufAllocator server() {
        return SERVER;
    }

    /** For channels to a broker that receive large responses (the consumer's, a follower's). */
    public static ByteBufAllocator channel() {
        return CHANNEL;
    }
}
