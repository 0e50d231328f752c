package io.raftline.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransportAllocatorTest {

    @Test
    void oneSharedDirectAllocatorPerSide() {
        assertThat(TransportAllocator.server()).isSameAs(TransportAllocator.server());
        assertThat(TransportAllocator.channel()).isSameAs(TransportAllocator.channel());
        for (ByteBufAllocator a : new ByteBufAllocator[]{TransportAllocator.server(), TransportAllocator.channel()}) {
            assertThat(a.isDirectBufferPooled()).isTrue();
            ByteBuf b = a.buffer(1024);
            try {
                assertThat(b.isDirect()).isTrue();
            } finally {
                b.release();
            }
        }
    }

    @Test
    void memoryOfReleasedResponsesIsReusedNotGrown() {
        // a fetch's worth of ~80 KiB buffers (what the HTTP/2 reader allocates), allocated and released 50 times:
        // the memory held stays that of about one response, it does not grow with the number of responses
        for (ByteBufAllocator a : new ByteBufAllocator[]{TransportAllocator.server(), TransportAllocator.channel()}) {
            long peak = 0;
            for (int round = 0; round < 50; round++) {
                List<ByteBuf> response = new ArrayList<>();
                for (int i = 0; i < 80; i++) {
                    response.add(a.directBuffer(80 * 1024).writeZero(80 * 1024));
                }
                peak = Math.max(peak, used(a));
                response.forEach(ByteBuf::release);
            }
            assertThat(peak).as("direct memory held by %s", a).isLessThan(64L << 20);
        }
    }

    private static long used(ByteBufAllocator a) {
        return ((ByteBufAllocatorMetricProvider) a).metric().usedDirectMemory();
    }
}
