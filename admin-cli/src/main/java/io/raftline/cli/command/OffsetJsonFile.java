package io.raftline.cli.command;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.raftline.cli.output.Json;
import io.raftline.client.common.TopicPartition;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * kafka-delete-records' {@code --offset-json-file}: {@code {"version":1,"partitions":[{"topic":"t","partition":0,
 * "offset":10}]}}, offset {@code -1} meaning the high watermark. {@link #parse} is the file's syntax; a failure
 * (IllegalArgumentException) names what is wrong, and nothing is deleted.
 */
public final class OffsetJsonFile {

    static final String SHAPE = "{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":10}]}";

    private OffsetJsonFile() {
    }

    /** The offset to delete below, per partition, in file order. */
    public static Map<TopicPartition, Long> parse(String text) {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject() || !root.path("partitions").isArray()) {
            throw new IllegalArgumentException("expected " + SHAPE);
        }
        if (root.has("version") && root.get("version").asInt(-1) != 1) {
            throw new IllegalArgumentException("unsupported version " + root.get("version") + " (expected 1)");
        }
        Map<TopicPartition, Long> out = new LinkedHashMap<>();
        for (JsonNode p : root.get("partitions")) {
            if (!p.path("topic").isTextual() || p.get("topic").asText().isEmpty() || !p.path("partition").isInt()
                || !p.path("offset").isIntegralNumber()) {
                throw new IllegalArgumentException("an entry without a topic, partition and offset: " + p);
            }
            TopicPartition tp = new TopicPartition(p.get("topic").asText(), p.get("partition").asInt());
            long offset = p.get("offset").asLong();
            if (tp.partition() < 0) {
                throw new IllegalArgumentException(tp + ": the partition must not be negative");
            }
            if (offset < -1) {
                throw new IllegalArgumentException(tp + ": offset " + offset + " is neither an offset nor -1 (the high watermark)");
            }
            if (out.put(tp, offset) != null) {
                throw new IllegalArgumentException(tp + " is listed twice");
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("it lists no partition");
        }
        return out;
    }
}
