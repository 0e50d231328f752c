package io.raftline.tests.soak;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether a soak's per-window series grew (issue 24, item 8): a pure function over the samples, so the rule is
 * table-tested apart from the run. The first quarter of the windows is warm-up (JIT, first-touch heap pages, the
 * first segment rolls) and is not judged; the median of the second quarter is the baseline and the median of the last
 * quarter must stay within {@code baseline * (1 + relative) + absolute}. Medians, so a single window caught in a
 * segment roll or a collection does not decide.
 */
public final class SoakGrowth {

    /** The bound for one metric: its name (which prefixes the series' names), the relative and the absolute allowance. */
    public record Bound(String name, double relative, double absolute) {
    }

    /** One series that grew past its bound. */
    public record Violation(String series, double baseline, double last, double allowed) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%s grew from %.1f to %.1f (allowed %.1f)", series, baseline, last, allowed);
        }
    }

    private SoakGrowth() {
    }

    /** The fewest windows the rule can judge: one each in the second and last quarter, and one of warm-up. */
    public static final int MIN_WINDOWS = 4;

    /**
     * The violation of {@code bound} by {@code series} (one value per window, in order), or {@code null} if it stayed
     * within it.
     *
     * @throws IllegalArgumentException if there are fewer than {@link #MIN_WINDOWS} values
     */
    public static Violation check(String series, double[] values, Bound bound) {
        int n = values.length;
        if (n < MIN_WINDOWS) {
            throw new IllegalArgumentException(series + ": " + n + " windows, at least " + MIN_WINDOWS + " are needed");
        }
        double baseline = median(Arrays.copyOfRange(values, n / 4, Math.max(n / 4 + 1, n / 2)));
        double last = median(Arrays.copyOfRange(values, Math.min(n - 1, (3 * n) / 4), n));
        double allowed = baseline * (1 + bound.relative()) + bound.absolute();
        return last > allowed ? new Violation(series, baseline, last, allowed) : null;
    }

    /** Every violation among several series of one metric (named {@code "<bound's name> <series' name>"}). */
    public static List<Violation> checkAll(Map<String, double[]> series, Bound bound) {
        List<Violation> out = new ArrayList<>();
        series.forEach((name, values) -> {
            Violation v = check(bound.name() + " " + name, values, bound);
            if (v != null) {
                out.add(v);
            }
        });
        return out;
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int m = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    }
}
