package io.raftline.cli.console;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.cli.output.Json;
import io.raftline.client.common.TimestampType;
import io.raftline.client.common.header.Header;
import io.raftline.client.consumer.ConsumerRecord;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * How the console consumer prints one record: one line, never with a line break of its own.
 *
 * <p>The default form is the fields asked for, in the order timestamp, partition, offset, headers, key, value,
 * separated by {@code key.separator} (a tab): partition and offset as bare numbers (as {@code --print-partition} and
 * {@code --print-offset} always did), the timestamp and headers as kafka-console-consumer prints them
 * ({@code CreateTime:1700000000000}; {@code k1:v1,k2:v2} or {@code NO_HEADERS}), a null key or value as
 * {@code null.literal} ({@code null}). The {@code json} form is one object per record with every field: topic,
 * partition, offset, timestamp, timestampType, key, value and headers ({@code [{"key":…,"value":…}]}, in order, as
 * keys may repeat). Keys, values and header values are text in the {@link Encoding} asked for, in both forms.
 *
 * <p>{@link #fromProperties} reads kafka-console-consumer's {@code --property} keys: {@code print.timestamp},
 * {@code print.partition}, {@code print.offset}, {@code print.headers}, {@code print.key}, {@code print.value}
 * ({@code true|false}), {@code key.separator}, {@code headers.separator}, {@code null.literal}.
 */
public final class RecordFormatter {

    /** The --property keys understood; any other is refused, so a typo does not silently print less. */
    public static final Set<String> PROPERTIES = Set.of("print.timestamp", "print.partition", "print.offset", "print.headers",
        "print.key", "print.value", "key.separator", "headers.separator", "null.literal");

    private final boolean json;
    private final Encoding encoding;
    private final boolean timestamp;
    private final boolean partition;
    private final boolean offset;
    private final boolean headers;
    private final boolean key;
    private final boolean value;
    private final String separator;
    private final String headersSeparator;
    private final String nullLiteral;

    private RecordFormatter(boolean json, Encoding encoding, Map<String, String> p) {
        this.json = json;
        this.encoding = encoding;
        this.timestamp = flag(p, "print.timestamp", false);
        this.partition = flag(p, "print.partition", false);
        this.offset = flag(p, "print.offset", false);
        this.headers = flag(p, "print.headers", false);
        this.key = flag(p, "print.key", false);
        this.value = flag(p, "print.value", true);
        this.separator = p.getOrDefault("key.separator", "\t");
        this.headersSeparator = p.getOrDefault("headers.separator", ",");
        this.nullLiteral = p.getOrDefault("null.literal", "null");
    }

    /**
     * A formatter from {@code --property} pairs ({@link #PROPERTIES}); {@code json} for {@code --formatter json}.
     * IllegalArgumentException for an unknown key or a flag that is not true or false.
     */
    public static RecordFormatter fromProperties(boolean json, Encoding encoding, Map<String, String> properties) {
        for (String k : properties.keySet()) {
            if (!PROPERTIES.contains(k)) {
                throw new IllegalArgumentException("unknown --property '" + k + "' (known: "
                    + String.join(", ", new TreeSet<>(PROPERTIES)) + ")");
            }
        }
        return new RecordFormatter(json, encoding, properties);
    }

    private static boolean flag(Map<String, String> p, String name, boolean otherwise) {
        String v = p.get(name);
        if (v == null) {
            return otherwise;
        }
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("--property " + name + " must be true or false, got '" + v + "'");
        };
    }

    /** The record as one line, without the line break. */
    public String format(ConsumerRecord<byte[], byte[]> r) {
        return json ? json(r) : line(r);
    }

    private String line(ConsumerRecord<byte[], byte[]> r) {
        StringBuilder s = new StringBuilder();
        if (timestamp) {
            field(s, r.timestampType() == TimestampType.NO_TIMESTAMP_TYPE ? "NO_TIMESTAMP"
                : (r.timestampType() == TimestampType.LOG_APPEND_TIME ? "LogAppendTime:" : "CreateTime:") + r.timestamp());
        }
        if (partition) {
            field(s, Integer.toString(r.partition()));
        }
        if (offset) {
            field(s, Long.toString(r.offset()));
        }
        if (headers) {
            StringBuilder h = new StringBuilder();
            for (Header header : r.headers()) {
                if (h.length() > 0) {
                    h.append(headersSeparator);
                }
                h.append(header.key()).append(':').append(text(header.value()));
            }
            field(s, h.length() == 0 ? "NO_HEADERS" : h.toString());
        }
        if (key) {
            field(s, text(r.key()));
        }
        if (value) {
            field(s, text(r.value()));
        }
        return s.toString();
    }

    private void field(StringBuilder s, String text) {
        if (s.length() > 0) {
            s.append(separator);
        }
        s.append(text);
    }

    private String text(byte[] bytes) {
        String t = encoding.encode(bytes);
        return t == null ? nullLiteral : t;
    }

    private String json(ConsumerRecord<byte[], byte[]> r) {
        ObjectNode o = Json.object().put("topic", r.topic()).put("partition", r.partition()).put("offset", r.offset())
            .put("timestamp", r.timestamp()).put("timestampType", r.timestampType().name());
        o.put("key", encoding.encode(r.key()));
        o.put("value", encoding.encode(r.value()));
        ArrayNode h = o.putArray("headers");
        for (Header header : r.headers()) {
            h.addObject().put("key", header.key()).put("value", encoding.encode(header.value()));
        }
        return Json.write(o);
    }
}
