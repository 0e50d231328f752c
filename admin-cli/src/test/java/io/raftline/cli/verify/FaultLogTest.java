package io.raftline.cli.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultLogTest {

    @Test
    void startsPairWithTheirEndsByNameAndTarget() {
        FaultLog log = FaultLog.parse(List.of(
            "# written by the campaign",
            "1000 start kill-leader 2",
            "1100 start partition-leader 1",
            "",
            "1500 end kill-leader 2",
            "1700 end partition-leader 1",
            "2000 start clock-skew",
            "2600 end clock-skew"));
        assertThat(log.warnings()).isEmpty();
        assertThat(log.windows()).containsExactly(
            new FaultLog.Window("kill-leader", "2", 1000, 1500),
            new FaultLog.Window("partition-leader", "1", 1100, 1700),
            new FaultLog.Window("clock-skew", null, 2000, 2600));
        assertThat(log.activeAt(1200)).hasSize(2);
        assertThat(log.activeAt(1500)).extracting(FaultLog.Window::label).containsExactly("partition-leader 1");
        assertThat(log.activeAt(1900)).isEmpty();
    }

    @Test
    void theSameFaultTwiceClosesTheEarliestOpenOneFirstAndAnUnendedStartStaysOpen() {
        FaultLog log = FaultLog.parse(List.of("100 start kill 1", "200 start kill 1", "300 end kill 1"));
        assertThat(log.windows()).containsExactly(new FaultLog.Window("kill", "1", 100, 300), new FaultLog.Window("kill", "1", 200, -1));
        assertThat(log.windows().get(1).open()).isTrue();
        assertThat(log.activeAt(1_000_000)).hasSize(1);
    }

    @Test
    void linesThatDoNotParseAndEndsWithoutStartsAreWarningsNotFailures() {
        FaultLog log = FaultLog.parse(List.of("soon start kill 1", "100 begin kill 1", "100 start", "200 end kill 3",
            "300 start kill 1 extra words", "400 start kill 1", "350 end kill 1"));
        assertThat(log.warnings()).hasSize(6);
        assertThat(log.warnings().get(0)).startsWith("fault log line 1 ignored");
        assertThat(log.warnings().get(3)).contains("an end without a start");
        assertThat(log.warnings().get(5)).contains("ends before its start");
        assertThat(log.windows()).containsExactly(new FaultLog.Window("kill", "1", 400, -1));
    }

    @Test
    void aFaultLogThatDoesNotExistYetIsEmptyWithAWarning(@TempDir Path dir) {
        FaultLog log = FaultLog.read(dir.resolve("faults.log"));
        assertThat(log.windows()).isEmpty();
        assertThat(log.warnings()).hasSize(1);
    }
}
