package io.raftline.cli.command.verify;

import io.raftline.cli.verify.AckRate;
import io.raftline.cli.verify.Event;
import io.raftline.cli.verify.Unavailability;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYStepRenderer;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The report's plot, drawn with JFreeChart: acknowledged records per second ({@link AckRate}) of the acks=all
 * producers, and of the acks=1 producer when the run had one, over seconds since the run started, with each fault
 * window shaded as a translucent band labelled with the fault (a window never ended runs to the end). Written as a
 * PNG beside report.md. Drawing needs only the JDK's headless Java 2D and a font; when it fails (a host without
 * fonts) the caller gets the reason and the run goes on: a plot is never worth failing a checked run for.
 */
final class AckPlot {

    static {
        // First, before java.awt.Color's initializer asks GraphicsEnvironment once and for all whether there is a
        // display: none is needed or wanted (the launcher sets it too; an explicit setting is left alone).
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    static final String FILE = "acks.png";
    static final int WIDTH = 1000;
    static final int HEIGHT = 450;
    static final String ALL = "acks=all";
    static final String ONE = "acks=1";

    private static final Color[] BANDS = {new Color(0xd6, 0x27, 0x28), new Color(0xff, 0x7f, 0x0e), new Color(0x94, 0x67, 0xbd),
        new Color(0x8c, 0x56, 0x4b)};
    private static final int BAND_ALPHA = 56;
    private static final Font LABEL_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
    /** Labels of overlapping windows are stacked this many lines deep (14 px each), then start again at the top. */
    private static final int LABEL_ROWS = 4;

    private AckPlot() {
    }

    /** Where the plot went (a file name relative to report.md), or why there is none. */
    record Result(String file, String problem) {
        static Result drawn(String file) {
            return new Result(file, null);
        }

        static Result failed(String problem) {
            return new Result(null, problem);
        }

        boolean isDrawn() {
            return problem == null;
        }
    }

    /** Draws the run's plot into {@code dir}/{@value #FILE}; never throws for a plot that could not be drawn. */
    static Result write(Path dir, List<Event> events, List<Unavailability.WindowGap> windows) {
        JFreeChart chart;
        try {
            chart = chart(events, windows);
        } catch (OutOfMemoryError e) {
            throw e;
        } catch (Exception | Error e) {
            return Result.failed(describe(e));
        }
        return render(chart, dir.resolve(FILE));
    }

    /**
     * Renders {@code chart} as a PNG to {@code file}, through a temporary file so that a failure leaves no half-written
     * image; a failure of any kind, the font errors of a host without fonts included, becomes the result's problem.
     */
    static Result render(JFreeChart chart, Path file) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            ChartUtils.saveChartAsPNG(tmp.toFile(), chart, WIDTH, HEIGHT);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return Result.drawn(file.getFileName().toString());
        } catch (OutOfMemoryError e) {
            throw e;
        } catch (Exception | Error e) {
            // Errors too (only running out of memory goes on up): Java 2D reports a host without fonts as an
            // InternalError wrapping "Fontconfig head is null", thrown from the first text it measures
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the problem reported is the first one
            }
            return Result.failed(describe(e));
        }
    }

    /** The chart of a run: one step series per kind of producer, one background band per fault window. */
    static JFreeChart chart(List<Event> events, List<Unavailability.WindowGap> windows) {
        long endNs = AckRate.workloadEndNs(events);
        XYSeriesCollection data = new XYSeriesCollection(series(ALL, AckRate.perSecond(AckRate.ackTimes(events, Event.Acks.ALL), endNs)));
        if (events.stream().anyMatch(e -> e instanceof Event.Send s && s.acks() == Event.Acks.ONE)) {
            data.addSeries(series(ONE, AckRate.perSecond(AckRate.ackTimes(events, Event.Acks.ONE), endNs)));
        }
        double endS = endNs / 1e9;
        NumberAxis x = new NumberAxis("seconds since the run started");
        x.setRange(0, Math.max(endS, 1));
        NumberAxis y = new NumberAxis("acknowledged records per second");
        y.setAutoRangeIncludesZero(true);
        // room above the series for the windows' labels, stacked up to LABEL_ROWS deep
        y.setUpperMargin(0.25);
        XYStepRenderer steps = new XYStepRenderer();
        steps.setSeriesPaint(0, new Color(0x1f, 0x77, 0xb4));
        steps.setSeriesPaint(1, new Color(0x2c, 0xa0, 0x2c));
        steps.setDefaultStroke(new BasicStroke(1.5f));
        steps.setAutoPopulateSeriesStroke(false);
        XYPlot plot = new XYPlot(data, x, y, steps);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        int i = 0;
        for (Unavailability.WindowGap w : windows) {
            double start = w.startNs() / 1e9;
            double end = w.window().open() ? endS : w.endNs() / 1e9;
            if (end < 0 || start > endS) {
                continue; // wholly before the run started (or after it ended): in the fault timeline, not on the plot
            }
            start = Math.max(0, start);
            end = Math.max(start, Math.min(end, endS));
            Color band = BANDS[i % BANDS.length];
            // translucent through the paint, not the marker's alpha, which would fade the label as well
            IntervalMarker m = new IntervalMarker(start, end, new Color(band.getRed(), band.getGreen(), band.getBlue(), BAND_ALPHA));
            m.setLabel(w.window().label() + (w.window().open() ? " (never ended)" : ""));
            m.setLabelFont(LABEL_FONT);
            m.setLabelPaint(band.darker());
            m.setLabelBackgroundColor(new Color(255, 255, 255, 200));
            m.setLabelAnchor(RectangleAnchor.TOP_LEFT);
            m.setLabelTextAnchor(TextAnchor.TOP_LEFT);
            m.setLabelOffset(new RectangleInsets(4 + 14 * (i % LABEL_ROWS), 4, 4, 4));
            plot.addDomainMarker(m, Layer.BACKGROUND);
            i++;
        }
        JFreeChart chart = new JFreeChart("Acknowledged records per second", JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    /** Second {@code i}'s count drawn as a step over [i, i+1): a point at each second's start and one at the last's end. */
    private static XYSeries series(String name, long[] perSecond) {
        XYSeries s = new XYSeries(name, false, true);
        for (int i = 0; i < perSecond.length; i++) {
            s.add(i, perSecond[i]);
        }
        if (perSecond.length > 0) {
            s.add(perSecond.length, perSecond[perSecond.length - 1]);
        }
        return s;
    }

    /** The root cause's class and first line: an InternalError's own message is only its wrapped exception's name. */
    private static String describe(Throwable thrown) {
        Throwable e = thrown;
        while (e.getCause() != null && e.getCause() != e) {
            e = e.getCause();
        }
        String message = e.getMessage();
        String first = message == null || message.isBlank() ? e.getClass().getName() : e.getClass().getSimpleName() + ": " + message;
        return first.lines().findFirst().orElse(first);
    }
}
