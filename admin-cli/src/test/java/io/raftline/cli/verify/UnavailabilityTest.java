package io.raftline.cli.verify;

import static io.raftline.cli.verify.Histories.history;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The longest time without an acknowledgement, overall and per fault window (history clock starts at epoch ms 1,000,000). */
class UnavailabilityTest {

    private static final long EPOCH = 1_000_000L;

    private static FaultLog faults(String... lines) {
        return FaultLog.parse(List.of(lines));
    }

    @Test
    void aHealthyRunsLongestGapIsTheAckSpacing() {
        Histories h = history().phase(Event.Phase.WORKLOAD_START, 0);
        for (long ms = 0; ms <= 1000; ms += 100) {
            h.ackAt(ms);
        }
        h.phase(Event.Phase.WORKLOAD_END, 1000);
        Unavailability.Report r = Unavailability.check(h.build(), FaultLog.EMPTY);
        assertThat(r.maxNoAckGapMs()).isEqualTo(100);
        assertThat(r.windows()).isEmpty();
    }

    @Test
    void theWaitForTheFirstAcknowledgementIsTheClientsStartNotUnavailability() {
        Histories h = history().phase(Event.Phase.WORKLOAD_START, 0);
        for (long ms = 900; ms <= 1500; ms += 100) {
            h.ackAt(ms);
        }
        h.phase(Event.Phase.WORKLOAD_END, 1500);
        assertThat(Unavailability.check(h.build(), FaultLog.EMPTY).maxNoAckGapMs()).isEqualTo(100);
    }

    @Test
    void aFaultsWindowTakesTheGapThatOverlapsIt() {
        // acks every 100 ms, none between 200 and 1500: a leader killed at 1000 (epoch), restarted at 1200
        Histories h = history().phase(Event.Phase.WORKLOAD_START, 0).ackAt(0).ackAt(100).ackAt(200).ackAt(1500).ackAt(1600)
            .phase(Event.Phase.WORKLOAD_END, 1700);
        Unavailability.Report r = Unavailability.check(h.build(), faults(
            (EPOCH + 250) + " start kill-leader 2",
            (EPOCH + 1200) + " end kill-leader 2",
            (EPOCH + 1550) + " start pause-follower 3",
            (EPOCH + 1580) + " end pause-follower 3"));
        assertThat(r.maxNoAckGapMs()).isEqualTo(1300);
        assertThat(r.gapStartNs()).isEqualTo(200_000_000L);
        assertThat(r.windows()).hasSize(2);
        assertThat(r.windows().get(0).window().label()).isEqualTo("kill-leader 2");
        assertThat(r.windows().get(0).maxNoAckGapMs()).isEqualTo(1300);
        assertThat(r.windows().get(0).startNs()).isEqualTo(250_000_000L);
        assertThat(r.windows().get(1).maxNoAckGapMs()).isEqualTo(100);
    }

    @Test
    void aClusterThatStopsAcknowledgingShowsTheGapToTheWorkloadsEnd() {
        Histories h = history().phase(Event.Phase.WORKLOAD_START, 0).ackAt(0).ackAt(100).ackAt(500)
            .phase(Event.Phase.WORKLOAD_END, 3000);
        Unavailability.Report r = Unavailability.check(h.build(), faults((EPOCH + 600) + " start partition-leader 1"));
        assertThat(r.maxNoAckGapMs()).isEqualTo(2500);
        // never ended: the window lasts to the workload's end
        assertThat(r.windows().get(0).window().open()).isTrue();
        assertThat(r.windows().get(0).endNs()).isEqualTo(3_000_000_000L);
        assertThat(r.windows().get(0).maxNoAckGapMs()).isEqualTo(2500);
    }

    @Test
    void nothingAcknowledgedAtAllIsTheWholeWorkload() {
        Histories h = history().phase(Event.Phase.WORKLOAD_START, 0).failed("v0").phase(Event.Phase.WORKLOAD_END, 2000);
        assertThat(Unavailability.check(h.build(), FaultLog.EMPTY).maxNoAckGapMs()).isEqualTo(2000);
    }

    @Test
    void acks1AcknowledgementsDoNotCountAsAvailability() {
        Histories h = history().phase(Event.Phase.WORKLOAD_START, 0).ackAt(0).at(500).acked1("w0", 0).at(900).acked1("w1", 1)
            .ackAt(1000).phase(Event.Phase.WORKLOAD_END, 1000);
        assertThat(Unavailability.check(h.build(), FaultLog.EMPTY).maxNoAckGapMs()).isEqualTo(1000);
    }

    @Test
    void aWindowOutsideTheRunHasNoGap() {
        Histories h = history().phase(Event.Phase.WORKLOAD_START, 0).ackAt(0).ackAt(100).phase(Event.Phase.WORKLOAD_END, 100);
        Unavailability.Report r = Unavailability.check(h.build(), faults((EPOCH + 5000) + " start late", (EPOCH + 6000) + " end late"));
        assertThat(r.windows().get(0).maxNoAckGapMs()).isZero();
    }
}
