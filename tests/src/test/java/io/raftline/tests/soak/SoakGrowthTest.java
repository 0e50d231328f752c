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

    @Test
    void theHeapAfterACollectionIsTheGenerationsUsedSummed() {
        String serial = """
            12345:
             def new generation   total 9792K, used 1210K [0x00000000f0000000, 0x00000000f0aa0000, 0x00000000f5550000)
              eden space 8704K,  13% used [0x00000000f0000000, 0x00000000f012e8d8, 0x00000000f0880000)
             tenured generation   total 21888K, used 15000K [0x00000000f5550000, 0x00000000f6ab0000, 0x0000000100000000)
             Metaspace       used 40000K, committed 40500K, reserved 1114112K
            """;
        assertThat(SoakRun.heapUsedKib(serial)).isEqualTo(16210);
        String g1 = " garbage-first heap   total 262144K, used 20480K [0x00000000f0000000, 0x0000000100000000)\n";
        assertThat(SoakRun.heapUsedKib(g1)).isEqualTo(20480);
        assertThatThrownBy(() -> SoakRun.heapUsedKib("12345:\nCould not attach")).hasMessageContaining("no heap figures");
    }
}
