package io.raftline.broker.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.metadata.image.MetadataImage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class ServedImageTest {

    @Test
    void waitsCompleteOnceTheirIndexIsPublishedAndNotBefore() {
        ServedImage served = new ServedImage();
        CompletableFuture<Void> at5 = served.awaitIndex(5);
        CompletableFuture<Void> at7 = served.awaitIndex(7);
        assertThat(at5).isNotDone();

        served.publish(MetadataImage.EMPTY.withIndex(4));
        assertThat(at5).isNotDone();
        assertThat(served.current().index()).isEqualTo(4);

        served.publish(MetadataImage.EMPTY.withIndex(6));
        assertThat(at5).isCompleted();
        assertThat(at7).isNotDone();
        assertThat(served.waiting()).isEqualTo(1);

        served.publish(MetadataImage.EMPTY.withIndex(7));
        assertThat(at7).isCompleted();
        assertThat(served.waiting()).isZero();
    }

    @Test
    void aWaitForAnIndexAlreadyServedIsDoneAtOnce() {
        ServedImage served = new ServedImage();
        served.publish(MetadataImage.EMPTY.withIndex(10));
        assertThat(served.awaitIndex(10)).isCompleted();
        assertThat(served.awaitIndex(3)).isCompleted();
        assertThat(served.waiting()).isZero();
    }

    @Test
    void aWaitGivenUpByItsCallerIsDropped() throws Exception {
        ServedImage served = new ServedImage();
        CompletableFuture<Void> far = served.awaitIndex(Long.MAX_VALUE).orTimeout(1, TimeUnit.MILLISECONDS);
        assertThat(far).failsWithin(5, TimeUnit.SECONDS).withThrowableOfType(java.util.concurrent.ExecutionException.class)
            .withCauseInstanceOf(TimeoutException.class);
        assertThat(served.waiting()).isZero();
    }
}
