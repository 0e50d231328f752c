package io.raftline.tests.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProcessStatsTest {

    @Test
    void theHeapAfterACollectionIsTheGenerationsUsedSummed() {
        String serial = """
            12345:
             def new generation   total 9792K, used 1210K [0x00000000f0000000, 0x00000000f0aa0000, 0x00000000f5550000)
              eden space 8704K,  13% used [0x00000000f0000000, 0x00000000f012e8d8, 0x00000000f0880000)
             tenured generation   total 21888K, used 15000K [0x00000000f5550000, 0x00000000f6ab0000, 0x0000000100000000)
             Metaspace       used 40000K, committed 40500K, reserved 1114112K
            """;
        assertThat(ProcessStats.heapUsedKib(serial)).isEqualTo(16210);
        String g1 = " garbage-first heap   total 262144K, used 20480K [0x00000000f0000000, 0x0000000100000000)\n";
        assertThat(ProcessStats.heapUsedKib(g1)).isEqualTo(20480);
        assertThatThrownBy(() -> ProcessStats.heapUsedKib("12345:\nCould not attach")).hasMessageContaining("no heap figures");
    }

    @Test
    void thisProcessHasAResidentSizeAndOpenFilesAndAGoneOneHasNone() {
        long self = ProcessHandle.current().pid();
        assertThat(ProcessStats.status(self, "VmRSS")).isPositive();
        assertThat(ProcessStats.openFiles(self)).isPositive();
        assertThatThrownBy(() -> ProcessStats.status(self, "NoSuchField")).hasMessageContaining("no NoSuchField");
        assertThat(ProcessStats.status(Long.MAX_VALUE, "VmRSS")).isEqualTo(-1);
    }

    @Test
    void theHeapAfterACollectionOfThisJvmIsReadWithJcmd() {
        long kib = ProcessStats.heapAfterGcKib(ProcessHandle.current().pid());
        assertThat(kib).isPositive().isLessThan(Runtime.getRuntime().maxMemory() / 1024);
    }
}
