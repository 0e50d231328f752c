package io.raftline.cli.command.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.cli.verify.Event;
import io.raftline.cli.verify.FaultLog;
import io.raftline.cli.verify.History;
import io.raftline.cli.verify.Unavailability;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartRenderingInfo;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.PlotRenderingInfo;
import org.jfree.chart.plot.PlotState;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.ui.Layer;
import org.jfree.data.xy.XYSeriesCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's plot: acknowledged records per second with the fault windows shaded, drawn as a PNG beside report.md. */
class AckPlotTest {

    private static final long START_MS = 1_700_000_000_000L;
    private static final long S = 1_000_000_000L;
    private static final String T = "verify-r1-0";

    /**
     * 10 acks=all acknowledgements a second, none in seconds 3 to 5 (a leader killed at 3 s, back at 6 s); an acks=1
     * producer acknowledged 5 a second throughout; the workload ends at 10.2 s.
     */
    private static List<Event> events(boolean acks1) {
        List<Event> e = new ArrayList<>();
        e.add(new Event.Phase(Event.Phase.WORKLOAD_START, 0));
        long offset = 0;
        for (int second = 0; second < 10; second++) {
            for (int i = 0; i < 10; i++) {
                long at = second * S + i * S / 10;
                if (second < 3 || second > 5) {
                    e.add(new Event.Send("p0", Event.Acks.ALL, T, "p0-" + offset, at, at, 0, offset++, null));
                }
                if (acks1 && i % 2 == 0) {
                    e.add(new Event.Send("acks1", Event.Acks.ONE, T, "acks1-" + at, at, at, 1, at, null));
                }
            }
        }
        e.add(new Event.Phase(Event.Phase.WORKLOAD_END, 10_200_000_000L));
        return e;
    }

    /** kill-leader 2 over [3, 6) s; a partition from 8 s that never ended. */
    private static List<Unavailability.WindowGap> windows(List<Event> events) {
        FaultLog faults = FaultLog.parse(List.of((START_MS + 3000) + " start kill-leader 2", (START_MS + 6000) + " end kill-leader 2",
            (START_MS + 8000) + " start partition 3"));
        return Unavailability.check(History.of("r1", START_MS, events), faults).windows();
    }

    private static List<IntervalMarker> bands(JFreeChart chart) {
        Collection<?> markers = chart.getXYPlot().getDomainMarkers(Layer.BACKGROUND);
        List<IntervalMarker> out = new ArrayList<>();
        if (markers != null) {
            markers.forEach(m -> out.add((IntervalMarker) m));
        }
        return out;
    }

    @Test
    void thePlotIsAPngBesideTheReport(@TempDir Path dir) throws Exception {
        List<Event> events = events(true);
        AckPlot.Result r = AckPlot.write(dir, events, windows(events));
        assertThat(r.isDrawn()).as(String.valueOf(r.problem())).isTrue();
        assertThat(r.file()).isEqualTo("acks.png");
        Path png = dir.resolve(r.file());
        // a chart of this size with text and bands: tens of kB, not a stub and not raw pixels (1000 x 450 x 4 = 1.8 MB)
        assertThat(Files.size(png)).isBetween(5_000L, 500_000L);
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).as("ImageIO reads it as an image").isNotNull();
        assertThat(image.getWidth()).isEqualTo(AckPlot.WIDTH);
        assertThat(image.getHeight()).isEqualTo(AckPlot.HEIGHT);
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("no temporary file left").containsExactly("acks.png");
        }
    }

    @Test
    void theSeriesAreTheAcknowledgementsPerSecondOfEachKindOfProducer() {
        List<Event> events = events(true);
        XYPlot plot = AckPlot.chart(events, windows(events)).getXYPlot();
        XYSeriesCollection data = (XYSeriesCollection) plot.getDataset();
        assertThat(data.getSeriesCount()).isEqualTo(2);
        assertThat(data.getSeries(0).getKey()).isEqualTo(AckPlot.ALL);
        assertThat(data.getSeries(1).getKey()).isEqualTo(AckPlot.ONE);
        List<Double> all = new ArrayList<>();
        for (int i = 0; i < data.getItemCount(0); i++) {
            assertThat(data.getXValue(0, i)).isEqualTo(i);
            all.add(data.getYValue(0, i));
        }
        // ten whole seconds, and the last one's end so that its step is drawn
        assertThat(all).containsExactly(10.0, 10.0, 10.0, 0.0, 0.0, 0.0, 10.0, 10.0, 10.0, 10.0, 10.0);
        assertThat(data.getYValue(1, 4)).isEqualTo(5.0);
        assertThat(plot.getDomainAxis().getUpperBound()).isEqualTo(10.2);

        List<Event> withoutAcks1 = events(false);
        assertThat(AckPlot.chart(withoutAcks1, windows(withoutAcks1)).getXYPlot().getDataset().getSeriesCount())
            .as("no acks=1 producer, no acks=1 series").isEqualTo(1);
    }

    @Test
    void eachFaultWindowIsOneLabelledBandAndAnOpenOneRunsToTheEnd() {
        List<Event> events = events(true);
        List<IntervalMarker> bands = bands(AckPlot.chart(events, windows(events)));
        assertThat(bands).hasSize(2);
        assertThat(bands.get(0).getStartValue()).isEqualTo(3.0);
        assertThat(bands.get(0).getEndValue()).isEqualTo(6.0);
        assertThat(bands.get(0).getLabel()).isEqualTo("kill-leader 2");
        assertThat(bands.get(1).getStartValue()).isEqualTo(8.0);
        assertThat(bands.get(1).getEndValue()).isEqualTo(10.2);
        assertThat(bands.get(1).getLabel()).isEqualTo("partition 3 (never ended)");
        assertThat(bands).allSatisfy(b -> assertThat(((Color) b.getPaint()).getAlpha()).as("translucent").isBetween(10, 128));
        assertThat(bands(AckPlot.chart(events, List.of()))).as("no faults, no bands").isEmpty();

        // a fault logged before the run started: no band for one that ended before it, one from 0 for one still on
        FaultLog early = FaultLog.parse(List.of((START_MS - 9000) + " start slow-disk 1", (START_MS - 5000) + " end slow-disk 1",
            (START_MS - 1000) + " start partition 1"));
        List<IntervalMarker> clipped = bands(AckPlot.chart(events, Unavailability.check(History.of("r1", START_MS, events), early)
            .windows()));
        assertThat(clipped).hasSize(1);
        assertThat(clipped.get(0).getLabel()).isEqualTo("partition 1 (never ended)");
        assertThat(clipped.get(0).getStartValue()).isZero();
        assertThat(clipped.get(0).getEndValue()).isEqualTo(10.2);
    }

    @Test
    void theBandsAreDrawnTranslucentOverTheFaultWindowsOnly() {
        List<Event> events = events(false);
        JFreeChart chart = AckPlot.chart(events, windows(events));
        ChartRenderingInfo info = new ChartRenderingInfo();
        BufferedImage image = chart.createBufferedImage(AckPlot.WIDTH, AckPlot.HEIGHT, info);
        Rectangle2D area = info.getPlotInfo().getDataArea();
        XYPlot plot = chart.getXYPlot();
        // halfway up the data area, between the steps: the series lines are at 0 and 10 there, so only bands and gridlines
        int y = (int) area.getCenterY() + 3;
        Color inKill = new Color(image.getRGB(pixelX(plot, area, 4.5), y));
        Color inPartition = new Color(image.getRGB(pixelX(plot, area, 9.5), y));
        Color outside = new Color(image.getRGB(pixelX(plot, area, 1.5), y));
        Color between = new Color(image.getRGB(pixelX(plot, area, 7.5), y));
        assertThat(List.of(outside, between)).allSatisfy(c -> assertThat(c.getRed() == c.getGreen() && c.getGreen() == c.getBlue())
            .as("no tint outside the windows: " + c).isTrue());
        assertThat(List.of(inKill, inPartition)).allSatisfy(c -> {
            assertThat(c.getRed() > c.getBlue() + 15 || c.getGreen() > c.getBlue() + 15).as("tinted inside a window: " + c).isTrue();
            assertThat(c.getRed() + c.getGreen() + c.getBlue()).as("translucent, not solid: " + c).isGreaterThan(500);
        });
    }

    private static int pixelX(XYPlot plot, Rectangle2D area, double seconds) {
        return (int) plot.getDomainAxis().valueToJava2D(seconds, area, plot.getDomainAxisEdge());
    }

    @Test
    void aPlotThatCannotBeDrawnIsAProblemNotAFailure(@TempDir Path dir) throws Exception {
        // what Java 2D throws on a host without fonts (seen with /usr/share/fonts hidden), from the first text measured
        XYPlot broken = new XYPlot() {
            @Override
            public void draw(Graphics2D g2, Rectangle2D area, java.awt.geom.Point2D anchor, PlotState parentState,
                             PlotRenderingInfo info) {
                throw new InternalError(new java.lang.reflect.InvocationTargetException(
                    new RuntimeException("Fontconfig head is null, check your fonts or fonts configuration")));
            }
        };
        AckPlot.Result r = AckPlot.render(new JFreeChart(null, null, broken, false), dir.resolve(AckPlot.FILE));
        assertThat(r.isDrawn()).isFalse();
        assertThat(r.problem()).isEqualTo("RuntimeException: Fontconfig head is null, check your fonts or fonts configuration");
        try (var files = Files.list(dir)) {
            assertThat(files.toList()).as("no file, no temporary file").isEmpty();
        }

        // and a report dir where acks.png cannot go
        Path taken = Files.createDirectories(dir.resolve(AckPlot.FILE));
        Files.writeString(taken.resolve("x"), "x");
        List<Event> events = events(false);
        AckPlot.Result blocked = AckPlot.write(dir, events, windows(events));
        assertThat(blocked.isDrawn()).isFalse();
        assertThat(blocked.problem()).contains("acks.png");
        assertThat(dir.resolve(AckPlot.FILE + ".tmp")).doesNotExist();
    }
}
