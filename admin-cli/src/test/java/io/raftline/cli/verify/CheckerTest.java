package io.raftline.cli.verify;

import static io.raftline.cli.verify.Histories.history;
import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.common.ManualTime;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole verdict over one history, and the history's clock and its JSON-lines file. */
class CheckerTest {

    private static Histories cleanRun() {
        return history().phase(Event.Phase.WORKLOAD_START, 0)
            .acked("v0", 0).acked("v1", 1).failed("v2").acked1("w3", 3)
            .read("c0", 1, 0, "v0").read("c0", 1, 1, "v1").commit("c0", 2, 10, 11)
            .phase(Event.Phase.WORKLOAD_END, 20)
            .finalReads(0, 1).finalRead(2, "v2").finalRead(3, "w3")
            .committedRead(2, 30);
    }

    @Test
    void aCleanRunIsSafeAndCountsWhatHappened() {
        Verdict v = Checker.check(cleanRun().build(), FaultLog.EMPTY);
        assertThat(v.safe()).as(v.toString()).isTrue();
        assertThat(v.acked()).isEqualTo(2);
        assertThat(v.failedSends()).isEqualTo(1);
        assertThat(v.failedSendErrors()).containsExactly(Map.entry("timed out", 1L));
        assertThat(v.acks1Acked()).isEqualTo(1);
        assertThat(v.acks1Lost().count()).isZero();
        assertThat(v.read()).isEqualTo(4);
        assertThat(v.anomalies()).extracting(Anomaly::name).containsExactly("lost", "moved", "duplicate", "inconsistentOffsets",
            "nonMonotonicPoll", "skip", "committedOffsetRegression");
    }

    @Test
    void failedSendsAreCountedByTheirErrorWithNumbersLeftOut() {
        Verdict v = Checker.check(cleanRun().failed("v7", "Delivery of t-1 timed out after 120004 ms")
            .failed("v8", "Delivery of t-2 timed out after 120017 ms").failed("v9", "INVALID_RECORD: bad|batch").build(),
            FaultLog.EMPTY);
        assertThat(v.failedSends()).isEqualTo(4);
        assertThat(v.failedSendErrors()).containsExactly(Map.entry("Delivery of t-# timed out after # ms", 2L),
            Map.entry("INVALID_RECORD: bad|batch", 1L), Map.entry("timed out", 1L));
    }

    @Test
    void oneLostAcksAllRecordFailsTheRunButALostAcks1RecordDoesNot() {
        Verdict acks1 = Checker.check(cleanRun().acked1("w9", 9).build(), FaultLog.EMPTY);
        assertThat(acks1.safe()).isTrue();
        assertThat(acks1.acks1Lost().count()).isEqualTo(1);

        Verdict lost = Checker.check(cleanRun().acked("v9", 9).build(), FaultLog.EMPTY);
        assertThat(lost.safe()).isFalse();
        assertThat(lost.anomaly("lost").count()).isEqualTo(1);
        assertThat(lost.anomaly("lost").examples().get(0).value()).isEqualTo("v9");
    }

    @Test
    void theHistoryStampsEventsWithItsInjectedMonotonicClock() {
        ManualTime time = new ManualTime();
        History h = new History("r1", time);
        time.sleep(250);
        h.phase(Event.Phase.WORKLOAD_START);
        assertThat(h.events()).containsExactly(new Event.Phase(Event.Phase.WORKLOAD_START, 250_000_000L));
        assertThat(h.toHistoryNs(h.startWallMs() + 1500)).isEqualTo(1_500_000_000L);
        assertThat(h.toEpochMs(2_000_000_000L)).isEqualTo(h.startWallMs() + 2000);
    }

    @Test
    void aHistoryWrittenAsJsonLinesReadsBackTheSameAndChecksTheSame(@TempDir Path dir) {
        History h = cleanRun().acked("v9", 9).build();
        Path file = dir.resolve("history.jsonl");
        h.write(file);
        History back = History.read(file);
        assertThat(back.run()).isEqualTo("test");
        assertThat(back.startWallMs()).isEqualTo(h.startWallMs());
        assertThat(back.events()).isEqualTo(h.events());
        assertThat(Checker.check(back, FaultLog.EMPTY)).isEqualTo(Checker.check(h, FaultLog.EMPTY));
    }
}
