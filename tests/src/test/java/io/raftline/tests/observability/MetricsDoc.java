package io.raftline.tests.observability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The series docs/metrics.md lists: every table row whose first cell is a backticked family name, as the scrape's
 * {@code # TYPE} line names it, with its "Appears" cell ({@code always}, {@code traffic}, or the event after which
 * it appears). Also reads the series an expression (an alert, a dashboard panel) uses.
 */
public final class MetricsDoc {

    private static final Pattern ROW = Pattern.compile("^\\| `([a-z_:][a-z0-9_:]*)` \\|");
    private static final Pattern IDENT = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Set<String> PROMQL_WORDS = Set.of("and", "or", "unless", "by", "without", "on", "ignoring",
        "group_left", "group_right", "bool", "offset", "inf", "nan");
    /** Prometheus' own series about its scrape. */
    private static final Set<String> PROMETHEUS_OWN = Set.of("up", "scrape_duration_seconds", "scrape_samples_scraped");

    private MetricsDoc() {
    }

    public static Path path() {
        return Path.of("..", "docs", "metrics.md");
    }

    /** Family -> its "Appears" cell, in the doc's order. */
    public static Map<String, String> rows() {
        String doc;
        try {
            doc = Files.readString(path(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : doc.lines().toList()) {
            Matcher m = ROW.matcher(line);
            if (m.find()) {
                String[] cells = line.split("\\|");
                if (cells.length < 7) {
                    throw new IllegalStateException("docs/metrics.md: a row needs 6 cells: " + line);
                }
                if (out.put(m.group(1), cells[6].strip()) != null) {
                    throw new IllegalStateException("docs/metrics.md lists " + m.group(1) + " twice");
                }
            }
        }
        return out;
    }

    public static Set<String> families() {
        return new TreeSet<>(rows().keySet());
    }

    /** The series names an expression reads (label matchers, strings, durations and function names left out). */
    public static Set<String> seriesIn(String expr) {
        String e = expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
            .replaceAll("\\{[^}]*}", " ")
            .replaceAll("\\[[^]]*]", " ")
            .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
        Set<String> out = new TreeSet<>();
        Matcher m = IDENT.matcher(e);
        while (m.find()) {
            String word = m.group();
            int next = m.end();
            while (next < e.length() && e.charAt(next) == ' ') {
                next++;
            }
            boolean call = next < e.length() && e.charAt(next) == '(';
            boolean number = m.start() > 0 && Character.isDigit(e.charAt(m.start() - 1));
            if (!call && !number && !PROMQL_WORDS.contains(word.toLowerCase()) && !word.startsWith("$")) {
                out.add(word);
            }
        }
        return out;
    }

    /**
     * The series not covered by the doc: a histogram's {@code _bucket}, {@code _count}, {@code _sum} and
     * Micrometer's {@code _max} beside it count as the family; Prometheus' own {@code up} is not ours.
     */
    public static Set<String> undocumented(Set<String> series, Set<String> documented) {
        Set<String> out = new TreeSet<>();
        for (String s : series) {
            if (PROMETHEUS_OWN.contains(s) || documented.contains(s)) {
                continue;
            }
            String base = s.replaceAll("_(bucket|count|sum|max)$", "");
            if (!documented.contains(base)) {
                out.add(s);
            }
        }
        return out;
    }
}
