package io.raftline.cli.console;

import io.raftline.client.common.header.Header;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * How the console producer reads one line into a record, as kafka-console-producer's line reader does with its
 * {@code --property} keys: {@code parse.key} (default false) with {@code key.separator} (a tab) makes a line
 * {@code key<sep>value}; {@code parse.headers} (default false) puts headers first, ended by {@code headers.delimiter}
 * (a tab), pairs separated by {@code headers.separator} ({@code ,}), each {@code key<headers.key.separator>value}
 * ({@code :}); so with both, {@code h1:v1,h2:v2<TAB>key<TAB>value}. A key, value or header value equal to
 * {@code null.marker} (when set) is null. Separators are matched literally; a line or header pair without its
 * separator is refused, naming what is missing.
 */
public final class LineReader {

    /** The --property keys understood; any other is refused. */
    public static final Set<String> PROPERTIES = Set.of("parse.key", "key.separator", "parse.headers", "headers.delimiter",
        "headers.separator", "headers.key.separator", "null.marker");

    /** One line's record. */
    public record Parsed(byte[] key, byte[] value, List<Header> headers) {
    }

    private final boolean parseKey;
    private final String keySeparator;
    private final boolean parseHeaders;
    private final String headersDelimiter;
    private final String headersSeparator;
    private final String headersKeySeparator;
    private final String nullMarker;

    private LineReader(Map<String, String> p) {
        this.parseKey = flag(p, "parse.key");
        this.keySeparator = nonEmpty(p, "key.separator", "\t");
        this.parseHeaders = flag(p, "parse.headers");
        this.headersDelimiter = nonEmpty(p, "headers.delimiter", "\t");
        this.headersSeparator = nonEmpty(p, "headers.separator", ",");
        this.headersKeySeparator = nonEmpty(p, "headers.key.separator", ":");
        this.nullMarker = p.get("null.marker");
    }

    /** A reader from {@code --property} pairs; IllegalArgumentException for an unknown key or a bad value. */
    public static LineReader fromProperties(Map<String, String> properties) {
        for (String k : properties.keySet()) {
            if (!PROPERTIES.contains(k)) {
                throw new IllegalArgumentException("unknown --property '" + k + "' (known: "
                    + String.join(", ", new TreeSet<>(PROPERTIES)) + ")");
            }
        }
        return new LineReader(properties);
    }

    private static boolean flag(Map<String, String> p, String name) {
        String v = p.getOrDefault(name, "false").trim();
        if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException("--property " + name + " must be true or false, got '" + v + "'");
        }
        return v.equalsIgnoreCase("true");
    }

    private static String nonEmpty(Map<String, String> p, String name, String otherwise) {
        String v = p.getOrDefault(name, otherwise);
        if (v.isEmpty()) {
            throw new IllegalArgumentException("--property " + name + " must not be empty");
        }
        return v;
    }

    /** The record of one line (without its line break); IllegalArgumentException saying what the line lacks. */
    public Parsed parse(String line) {
        String rest = line;
        List<Header> headers = new ArrayList<>();
        if (parseHeaders) {
            int at = rest.indexOf(headersDelimiter);
            if (at < 0) {
                throw new IllegalArgumentException("no headers delimiter '" + printable(headersDelimiter) + "' in the line");
            }
            String part = rest.substring(0, at);
            rest = rest.substring(at + headersDelimiter.length());
            if (!part.isEmpty()) {
                for (String pair : split(part, headersSeparator)) {
                    int k = pair.indexOf(headersKeySeparator);
                    if (k < 0) {
                        throw new IllegalArgumentException("no header key separator '" + printable(headersKeySeparator)
                            + "' in the header '" + pair + "'");
                    }
                    headers.add(new Header(pair.substring(0, k), bytes(pair.substring(k + headersKeySeparator.length()))));
                }
            }
        }
        byte[] key = null;
        if (parseKey) {
            int at = rest.indexOf(keySeparator);
            if (at < 0) {
                throw new IllegalArgumentException("no key separator '" + printable(keySeparator) + "' in the line");
            }
            key = bytes(rest.substring(0, at));
            rest = rest.substring(at + keySeparator.length());
        }
        return new Parsed(key, bytes(rest), List.copyOf(headers));
    }

    private byte[] bytes(String text) {
        return nullMarker != null && text.equals(nullMarker) ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> split(String text, String separator) {
        List<String> out = new ArrayList<>();
        int from = 0;
        for (int at = text.indexOf(separator); at >= 0; at = text.indexOf(separator, from)) {
            out.add(text.substring(from, at));
            from = at + separator.length();
        }
        out.add(text.substring(from));
        return out;
    }

    private static String printable(String separator) {
        return separator.replace("\t", "\\t");
    }
}
