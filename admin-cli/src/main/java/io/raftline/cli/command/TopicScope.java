package io.raftline.cli.command;

import java.util.ArrayList;
import java.util.List;

/**
 * One {@code --topic T[:P[,P...]]} of {@code groups reset-offsets}: a topic, and the partitions named (none means
 * every partition), as kafka-consumer-groups reads it.
 */
public record TopicScope(String topic, List<Integer> partitions) {

    public TopicScope {
        partitions = List.copyOf(partitions);
    }

    /** Parses {@code T}, {@code T:P} or {@code T:P,P...}; IllegalArgumentException saying what does not parse. */
    public static TopicScope parse(String text) {
        int colon = text.indexOf(':');
        String topic = (colon < 0 ? text : text.substring(0, colon)).strip();
        if (topic.isEmpty()) {
            throw new IllegalArgumentException("--topic '" + text + "': no topic name");
        }
        List<Integer> partitions = new ArrayList<>();
        if (colon >= 0) {
            for (String p : text.substring(colon + 1).split(",", -1)) {
                int n;
                try {
                    n = Integer.parseInt(p.strip());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--topic '" + text + "': '" + p.strip()
                        + "' is not a partition number (expected T or T:P,P...)");
                }
                if (n < 0) {
                    throw new IllegalArgumentException("--topic '" + text + "': partition " + n + " is negative");
                }
                if (!partitions.contains(n)) {
                    partitions.add(n);
                }
            }
        }
        return new TopicScope(topic, partitions);
    }
}
