package io.raftline.broker.console;

import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.header.Header;
import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.consumer.ConsumerRecord;
import io.raftline.client.consumer.OffsetAndTimestamp;
import io.raftline.client.consumer.RaftlineConsumer;
import io.raftline.common.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Reads a page of records of one partition for the console, with the project's own consumer (no group, nothing
 * committed): from an offset, from the first record at or after a time, or the last {@code limit} records. Reads
 * stop at the high watermark, at {@code limit} records, or after {@link #READ_TIMEOUT}.
 */
final class RecordBrowser {

    static final Duration READ_TIMEOUT = Duration.ofSeconds(3);
    static final int MAX_LIMIT = 500;

    /** How keys and values are shown. */
    enum Encoding {
        UTF8, HEX, BASE64;

        static Encoding of(String name) {
            return switch (name) {
                case "hex" -> HEX;
                case "base64" -> BASE64;
                default -> UTF8;
            };
        }

        String render(byte[] bytes) {
            if (bytes == null) {
                return null;
            }
            return switch (this) {
                case UTF8 -> new String(bytes, StandardCharsets.UTF_8);
                case HEX -> HexFormat.of().formatHex(bytes);
                case BASE64 -> Base64.getEncoder().encodeToString(bytes);
            };
        }
    }

    record HeaderView(String key, String value) {
    }

    record RecordView(long offset, long timestamp, String key, String value, List<HeaderView> headers) {
    }

    /** A page: the partition's log start and high watermark when read, the records, and where the next page starts. */
    record Page(String topic, int partition, String format, long logStartOffset, long highWatermark, long startOffset,
                List<RecordView> records, long nextOffset) {
    }

    private final String bootstrap;
    private final String clientId;
    private final Time time;

    RecordBrowser(String bootstrap, String clientId, Time time) {
        this.bootstrap = bootstrap;
        this.clientId = clientId;
        this.time = time;
    }

    /** {@code offset} or {@code timestampMs} (at most one; neither means the last {@code limit} records). */
    Page read(TopicPartition tp, Long offset, Long timestampMs, int limit, Encoding encoding) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        props.setProperty("client.id", clientId);
        props.setProperty("enable.auto.commit", "false");
        props.setProperty("auto.offset.reset", "earliest");
        props.setProperty("default.api.timeout.ms", Long.toString(READ_TIMEOUT.toMillis()));
        try (RaftlineConsumer<byte[], byte[]> consumer = new RaftlineConsumer<>(props, new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            long begin = consumer.beginningOffsets(Set.of(tp)).get(tp);
            long end = consumer.endOffsets(Set.of(tp)).get(tp);
            long start;
            if (timestampMs != null) {
                OffsetAndTimestamp found = consumer.offsetsForTimes(Map.of(tp, timestampMs)).get(tp);
                start = found == null ? end : found.offset();
            } else if (offset != null) {
                start = Math.min(Math.max(offset, begin), end);
            } else {
                start = Math.max(begin, end - limit);
            }
            List<RecordView> out = new ArrayList<>();
            long next = start;
            if (start < end) {
                consumer.seek(tp, start);
                long deadlineMs = time.milliseconds() + READ_TIMEOUT.toMillis();
                while (out.size() < limit && next < end && time.milliseconds() < deadlineMs) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200)).records(tp)) {
                        if (out.size() >= limit || r.offset() >= end) {
                            break;
                        }
                        out.add(view(r, encoding));
                        next = r.offset() + 1;
                    }
                }
            }
            return new Page(tp.topic(), tp.partition(), encoding.name().toLowerCase(java.util.Locale.ROOT), begin, end,
                start, out, next);
        }
    }

    private static RecordView view(ConsumerRecord<byte[], byte[]> r, Encoding encoding) {
        List<HeaderView> headers = new ArrayList<>();
        for (Header h : r.headers()) {
            headers.add(new HeaderView(h.key(), encoding.render(h.value())));
        }
        return new RecordView(r.offset(), r.timestamp(), encoding.render(r.key()), encoding.render(r.value()), headers);
    }
}
