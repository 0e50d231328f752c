package io.raftline.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class UuidTest {

    @Test
    void printsTwentyTwoUrlSafeCharactersAndParsesBack() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 1000; i++) {
            Uuid id = Uuid.random(random);
            String s = id.toString();
            assertThat(s).hasSize(22).matches("[A-Za-z0-9_-]{22}");
            assertThat(Uuid.fromString(s)).isEqualTo(id).hasSameHashCodeAs(id);
            assertThat(Uuid.fromBytes(id.bytes())).isEqualTo(id);
        }
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
