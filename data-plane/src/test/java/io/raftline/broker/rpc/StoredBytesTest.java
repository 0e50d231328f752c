package io.raftline.broker.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.raftline.broker.log.FetchDataInfo;
import io.raftline.broker.log.FileSlice;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoredBytesTest {

    @TempDir
    Path dir;

    private static byte[] bytes(int n, long seed) {
        System.out.println("seed " + seed);
        byte[] b = new byte[n];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < n; i++) {
            b[i] = (byte) random.nextInt(256);
        }
        return b;
    }

    @Test
    void wrapsEachSliceInOrderAndReusesTheBuffer() throws Exception {
        byte[] content = bytes(3 << 20, 5);
        Path file = dir.resolve("segment");
        Files.write(file, content);
        StoredBytes pool = new StoredBytes();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            FetchDataInfo a = new FetchDataInfo(0, List.of(new FileSlice(ch, 10, 1000, 1), new FileSlice(ch, 5000, 70_000, 1)));
            FetchDataInfo b = new FetchDataInfo(0, List.of(new FileSlice(ch, 1 << 20, 2 << 20, 1)));
            try (StoredBytes.Lease lease = pool.lease(a.sizeInBytes() + b.sizeInBytes())) {
                ByteString wa = lease.wrap(a);
                ByteString wb = lease.wrap(b);
                byte[] expectA = new byte[71_000];
                System.arraycopy(content, 10, expectA, 0, 1000);
                System.arraycopy(content, 5000, expectA, 1000, 70_000);
                assertThat(wa.toByteArray()).isEqualTo(expectA);
                assertThat(wb.toByteArray()).isEqualTo(Arrays.copyOfRange(content, 1 << 20, 3 << 20));
            }
            assertThat(pool.pooled()).isEqualTo(1);
            // the pooled buffer serves the next response: the bytes are those of the new read
            try (StoredBytes.Lease lease = pool.lease(100)) {
                assertThat(pool.pooled()).isZero();
                ByteString w = lease.wrap(new FetchDataInfo(0, List.of(new FileSlice(ch, 7, 100, 1))));
                assertThat(w.toByteArray()).isEqualTo(Arrays.copyOfRange(content, 7, 107));
                assertThatThrownBy(() -> {
                    lease.close();
                    lease.wrap(new FetchDataInfo(0, List.of(new FileSlice(ch, 7, 100, 1))));
                }).isInstanceOf(IllegalStateException.class);
            }
            assertThat(pool.pooled()).isEqualTo(1);
        }
    }

    @Test
    void keepsAtMostMaxPooledBuffersAndNoneAboveTheLimit() {
        StoredBytes pool = new StoredBytes();
        List<StoredBytes.Lease> leases = new java.util.ArrayList<>();
        for (int i = 0; i < StoredBytes.MAX_POOLED + 3; i++) {
            leases.add(pool.lease(1000));
        }
        leases.forEach(StoredBytes.Lease::close);
        assertThat(pool.pooled()).isEqualTo(StoredBytes.MAX_POOLED);
        StoredBytes big = new StoredBytes();
        big.lease(StoredBytes.MAX_POOLED_BYTES + 1).close();
        assertThat(big.pooled()).isZero();
    }

    @Test
    void aSliceBeyondTheFileEndIsAnIoError() throws Exception {
        Path file = dir.resolve("short");
        Files.write(file, bytes(100, 6));
        StoredBytes pool = new StoredBytes();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
             StoredBytes.Lease lease = pool.lease(200)) {
            assertThatThrownBy(() -> lease.wrap(new FetchDataInfo(0, List.of(new FileSlice(ch, 50, 200, 1)))))
                .isInstanceOf(UncheckedIOException.class);
        }
    }
}
