package io.raftline.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class UuidTest {

    @Test
    void printsTwentyTwoUrlSafeCharactersAndParsesBack() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 1000; i++) {
            Uuid id = Uuid.random(random);
            String s = id.toString();
            assertThat(s).hasSize(22).matches("[A-Za-z0-9_-]{22}").doesNotStartWith("-");
            assertThat(Uuid.fromString(s)).isEqualTo(id).hasSameHashCodeAs(id);
            assertThat(Uuid.fromBytes(id.bytes())).isEqualTo(id);
        }
    }

    /**
     * An id printed with a leading '-' reads as an option on a command line ({@code raftline storage format
     * --cluster-id -VNa2...} failed so); as Kafka's, such a draw is drawn again. The first draw here has a first
     * byte of 0xF8, whose top six bits are base64's 62nd character, '-'.
     */
    @Test
    void neverPrintsWithALeadingDash() {
        SplittableRandom seeded = new SplittableRandom(3);
        RandomGenerator dashFirst = new RandomGenerator() {
            private boolean first = true;

            @Override
            public long nextLong() {
                return seeded.nextLong();
            }

            @Override
            public void nextBytes(byte[] bytes) {
                seeded.nextBytes(bytes);
                if (first) {
                    bytes[0] = (byte) 0xF8;
                    first = false;
                }
            }
        };
        Uuid id = Uuid.random(dashFirst);
        assertThat(id.toString()).doesNotStartWith("-");
        assertThat(id.bytes()[0]).isNotEqualTo((byte) 0xF8);
    }

    @Test
    void sameSeedSameIds() {
        assertThat(Uuid.random(new SplittableRandom(7))).isEqualTo(Uuid.random(new SplittableRandom(7)));
    }

    @Test
    void refusesBadInput() {
        assertThatThrownBy(() -> Uuid.fromString("abc")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Uuid.fromString("!!!!!!!!!!!!!!!!!!!!!!")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Uuid.fromBytes(new byte[3])).isInstanceOf(IllegalArgumentException.class);
        assertThat(Uuid.ZERO.toString()).isEqualTo("AAAAAAAAAAAAAAAAAAAAAA");
    }
}
