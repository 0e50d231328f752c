package io.raftline.tests.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A soak's windows as one SVG: four panels over the run's minutes (each node's resident memory, each node's heap
 * after a full collection, each node's open files, the producer's latency percentiles), each scaled from zero to its
 * largest value so growth shows as slope. Plain SVG text, no plotting library: the page needs nothing but a browser.
 */
public final class SoakPlot {

    private static final int WIDTH = 900;
    private static final int PANEL = 190;
    private static final int LEFT = 70;
    private static final int RIGHT = 170;
    private static final int TOP = 30;
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"};

    private SoakPlot() {
    }

    public static String svg(SoakRun.Result r) {
        List<SoakRun.Window> ws = r.windows();
        double[] minutes = new double[ws.size()];
        for (int i = 0; i < ws.size(); i++) {
            minutes[i] = ws.get(i).endSeconds() / 60;
        }
        Map<String, double[]> latency = new LinkedHashMap<>();
        latency.put("p50", ws.stream().mapToDouble(SoakRun.Window::p50Ms).toArray());
        latency.put("p99", ws.stream().mapToDouble(SoakRun.Window::p99Ms).toArray());
        latency.put("p99.9", ws.stream().mapToDouble(SoakRun.Window::p999Ms).toArray());
        List<Panel> panels = new ArrayList<>();
        panels.add(new Panel("resident memory (MiB)", r.nodeSeries(SoakRun.NodeSample::rssMiB)));
        panels.add(new Panel("heap after a full collection (MiB)", r.nodeSeries(SoakRun.NodeSample::heapAfterGcMiB)));
        panels.add(new Panel("open files", r.nodeSeries(SoakRun.NodeSample::openFiles)));
        panels.add(new Panel("produce latency, acks=all (ms)", latency));
        int height = TOP + panels.size() * (PANEL + 40) + 20;
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            + "font-family=\"sans-serif\" font-size=\"12\">\n", WIDTH, height));
        out.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\">Soak: %.0f records/s acks=all "
            + "(half of %.0f), %d windows over %.0f min; %d acknowledged, %d never read</text>\n", LEFT, r.targetPerSec(),
            r.maxPerSec(), ws.size(), minutes.length == 0 ? 0 : minutes[minutes.length - 1], r.acked(), r.ackedNeverRead()));
        double xMax = minutes.length == 0 ? 1 : Math.max(minutes[minutes.length - 1], 1e-9);
        for (int p = 0; p < panels.size(); p++) {
            panel(out, panels.get(p), minutes, xMax, TOP + p * (PANEL + 40) + 20);
        }
        return out.append("</svg>\n").toString();
    }

    private record Panel(String title, Map<String, double[]> series) {
    }

    private static void panel(StringBuilder out, Panel panel, double[] x, double xMax, int top) {
        int plotWidth = WIDTH - LEFT - RIGHT;
        double yMax = 0;
        for (double[] v : panel.series().values()) {
            for (double d : v) {
                yMax = Math.max(yMax, d);
            }
        }
        yMax = yMax <= 0 ? 1 : yMax * 1.1;
        int bottom = top + PANEL;
        out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>\n", LEFT, top - 6,
            panel.title()));
        out.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
            + "stroke=\"#999\"/>\n", LEFT, top, plotWidth, PANEL));
        for (int t = 0; t <= 4; t++) {
            double v = yMax * t / 4;
            int y = bottom - (int) Math.round(PANEL * t / 4.0);
            out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", LEFT - 6,
                y + 4, label(v)));
            double m = xMax * t / 4;
            int xt = LEFT + (int) Math.round(plotWidth * t / 4.0);
            out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s min</text>\n", xt,
                bottom + 15, label(m)));
        }
        int c = 0;
        for (Map.Entry<String, double[]> e : panel.series().entrySet()) {
            String colour = COLOURS[c % COLOURS.length];
            StringBuilder points = new StringBuilder();
            double[] v = e.getValue();
            for (int i = 0; i < v.length; i++) {
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", LEFT + plotWidth * x[i] / xMax,
                    bottom - PANEL * v[i] / yMax));
            }
            out.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
                + "points=\"%s\"/>\n", colour, points.toString().strip()));
            out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", LEFT + plotWidth + 10,
                top + 14 + 16 * c, colour, e.getKey()));
            c++;
        }
    }

    private static String label(double v) {
        return v >= 100 || v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
