package io.raftline.tests.cluster;

import java.util.Map;

/**
 * Reads samples out of a {@code /metrics} scrape (Prometheus text format 0.0.4): enough for tests to sum a metric
 * over the label values they care about. Labels not named in the filter may have any value.
 */
public final class PrometheusText {

    private PrometheusText() {
    }

    /** The sum of every sample of {@code name} whose labels include all of {@code labels}; 0 when there is none. */
    public static double sum(String scrape, String name, Map<String, String> labels) {
        double total = 0;
        for (String line : scrape.split("\n")) {
            if (line.startsWith("#") || !line.startsWith(name)) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            String metric = brace > 0 && brace < space ? line.substring(0, brace) : line.substring(0, space);
            if (!metric.equals(name)) {
                continue;
            }
            String labelText = brace > 0 && brace < space ? line.substring(brace + 1, line.lastIndexOf('}')) : "";
            if (matches(labelText, labels)) {
                total += Double.parseDouble(line.substring(space + 1));
            }
        }
        return total;
    }

    /** The sum of every sample of {@code name}, whatever its labels. */
    public static double sum(String scrape, String name) {
        return sum(scrape, name, Map.of());
    }

    private static boolean matches(String labelText, Map<String, String> wanted) {
        for (Map.Entry<String, String> w : wanted.entrySet()) {
            if (!("," + labelText).contains("," + w.getKey() + "=\"" + w.getValue() + "\"")) {
                return false;
            }
        }
        return true;
    }
}
