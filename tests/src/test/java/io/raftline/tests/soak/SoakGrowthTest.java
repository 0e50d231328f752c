package io.raftline.tests.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SoakGrowthTest {

    private static final SoakGrowth.Bound BOUND = new SoakGrowth.Bound("rss", 0.10, 5);

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // series (one value per window) | grew
        "flat                          | 100 100 100 100 100 100 100 100 | false",
        "warm-up only, then flat       | 10 50 100 100 100 100 100 100   | false",
        "within 10 % + 5               | 100 100 100 100 100 100 114 115 | false",
        "past 10 % + 5                 | 100 100 100 100 100 100 116 116 | true",
        "steady climb                  | 100 110 120 130 140 150 160 170 | true",
        "one spike in the last quarter | 100 100 100 100 100 100 100 100 100 100 100 300 | false",
        "two spikes in the last quarter| 100 100 100 100 100 100 100 100 100 100 300 300 | true",
        "falls                         | 200 200 200 200 150 150 100 100 | false",
        "four windows, grew            | 100 100 100 200                 | true",
        "four windows, flat            | 100 100 100 105                 | false",
    })
    void theLastQuarterIsJudgedAgainstTheSecond(String name, String values, boolean grew) {
        String[] parts = values.trim().split("\\s+");
        double[] series = new double[parts.length];
        for (int i = 0; i < parts.length; i++) {
            series[i] = Double.parseDouble(parts[i]);
        }
        assertThat(SoakGrowth.check(name, series, BOUND) != null).isEqualTo(grew);
    }

    @Test
    void tooFewWindowsAreRefused() {
        assertThatThrownBy(() -> SoakGrowth.check("rss", new double[] {1, 2, 3}, BOUND))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 4");
    }
}
