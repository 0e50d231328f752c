package io.raftline.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FrameSizeTest {

    @ParameterizedTest
    @CsvSource({
        "0, 1024, ",
        "1024, 1024, ",
        "1025, 1024, above socket.request.max.bytes",
        "-1, 1024, negative size",
        // "GET " of an HTTP client, read as a size
        "1195725856, 104857600, above socket.request.max.bytes",
    })
    void decides(int size, int max, String problem) {
        if (problem == null) {
            assertThat(FrameSize.problem(size, max)).isNull();
        } else {
            assertThat(FrameSize.problem(size, max)).contains(problem);
        }
    }
}
