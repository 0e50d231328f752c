package io.raftline.client.internals.producer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BufferPoolTest {

    @Test
    void aReturnedBatchSizeArrayIsHandedOutAgain() {
        BufferPool pool = new BufferPool(64 * 1024, 16 * 1024);
        assertThat(pool.allocateArray(16 * 1024, 0)).as("nothing to recycle yet").isNull();
        byte[] array = new byte[16 * 1024];
        pool.deallocate(16 * 1024, array);
        assertThat(pool.availableMemory()).isEqualTo(64 * 1024);
        assertThat(pool.freeArrays()).isEqualTo(1);
        assertThat(pool.allocateArray(16 * 1024, 0)).isSameAs(array);
        assertThat(pool.freeArrays()).isZero();
        assertThat(pool.availableMemory()).isEqualTo(48 * 1024);
    }

    @Test
    void arraysOfAnotherSizeOrANullArrayAreNotKept() {
        BufferPool pool = new BufferPool(64 * 1024, 16 * 1024);
        pool.allocate(20 * 1024, 0);
        pool.deallocate(20 * 1024, new byte[20 * 1024]);
        pool.allocate(16 * 1024, 0);
        pool.deallocate(16 * 1024, null);
        assertThat(pool.freeArrays()).isZero();
        assertThat(pool.availableMemory()).isEqualTo(64 * 1024);
    }

    @Test
    void keptArraysNeverPushTheTotalAboveBufferMemory() {
        BufferPool pool = new BufferPool(64 * 1024, 16 * 1024);
        byte[][] arrays = new byte[4][];
        for (int i = 0; i < 4; i++) {
            assertThat(pool.allocateArray(16 * 1024, 0)).isNull();
            arrays[i] = new byte[16 * 1024];
        }
        for (byte[] a : arrays) {
            pool.deallocate(16 * 1024, a);
        }
        assertThat(pool.freeArrays()).isEqualTo(4);
        // A large record's batch takes 40 KiB: only what still fits beside it stays kept (one array of 16 KiB).
        pool.allocate(40 * 1024, 0);
        assertThat((long) pool.freeArrays() * 16 * 1024).isLessThanOrEqualTo(pool.availableMemory());
        assertThat(pool.freeArrays()).isEqualTo(1);
    }
}
