package io.raftline.broker.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ProduceAdmissionTest {

    private static final class CountingWaiter implements ProduceAdmission.Waiter {
        final AtomicInteger grants = new AtomicInteger();

        @Override
        public void granted() {
            grants.incrementAndGet();
        }
    }

    @Test
    void reservesUpToTheRequestBoundThenQueuesInOrder() {
        ProduceAdmission admission = new ProduceAdmission(2, 1_000);
        CountingWaiter a = new CountingWaiter();
        CountingWaiter b = new CountingWaiter();
        CountingWaiter c = new CountingWaiter();
        assertThat(admission.reserveOrWait(a)).isTrue();
        assertThat(admission.reserveOrWait(a)).isTrue();
        assertThat(admission.reserveOrWait(b)).isFalse();
        assertThat(admission.reserveOrWait(c)).isFalse();
        assertThat(admission.waiting()).isEqualTo(2);

        admission.arrived(10);
        admission.release(10);
        assertThat(b.grants).hasValue(1);
        assertThat(c.grants).hasValue(0);
        assertThat(admission.requests()).isEqualTo(2);

        admission.cancelReservation();
        assertThat(c.grants).hasValue(1);
        assertThat(admission.waiting()).isZero();
    }

    @Test
    void stopsGrantingOnceTheByteBoundIsReached() {
        ProduceAdmission admission = new ProduceAdmission(100, 1_000);
        CountingWaiter w = new CountingWaiter();
        assertThat(admission.reserveOrWait(w)).isTrue();
        admission.arrived(1_000);
        assertThat(admission.reserveOrWait(w)).as("the held bytes reached the bound").isFalse();
        assertThat(admission.bytes()).isEqualTo(1_000);

        assertThat(admission.reserveOrWait(new CountingWaiter())).as("a newcomer may not pass a waiter").isFalse();
        admission.release(1_000);
        assertThat(w.grants).hasValue(1);
        assertThat(admission.bytes()).isZero();
    }

    @Test
    void aForgottenWaiterIsNotGranted() {
        ProduceAdmission admission = new ProduceAdmission(1, 1_000);
        CountingWaiter holder = new CountingWaiter();
        CountingWaiter gone = new CountingWaiter();
        assertThat(admission.reserveOrWait(holder)).isTrue();
        assertThat(admission.reserveOrWait(gone)).isFalse();
        admission.forget(gone);
        admission.cancelReservation();
        assertThat(gone.grants).hasValue(0);
        assertThat(admission.requests()).isZero();
    }

    @Test
    void releasingMoreThanHeldIsABug() {
        ProduceAdmission admission = new ProduceAdmission(1, 1_000);
        assertThatThrownBy(admission::cancelReservation).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new ProduceAdmission(0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void manyStreamsNeverHoldMoreThanTheBound() {
        ProduceAdmission admission = new ProduceAdmission(3, 1_000_000);
        List<CountingWaiter> streams = new ArrayList<>();
        int admitted = 0;
        for (int i = 0; i < 10; i++) {
            CountingWaiter w = new CountingWaiter();
            streams.add(w);
            if (admission.reserveOrWait(w)) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(3);
        for (int round = 0; round < 7; round++) {
            admission.cancelReservation();
            assertThat(admission.requests()).isLessThanOrEqualTo(3);
        }
        assertThat(streams.stream().mapToInt(w -> w.grants.get()).sum()).isEqualTo(7);
    }
}
