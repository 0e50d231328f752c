package io.raftline.cli.verify;

import java.util.ArrayList;
import java.util.List;

/**
 * What one check found: how many times the anomaly occurred and the first few occurrences.
 *
 * @param name     the anomaly, as in the JSON output ({@code lost}, {@code moved}, ...)
 * @param count    how many occurrences (records, offsets or jumps, as each check says)
 * @param examples at most {@link #MAX_EXAMPLES} of them, in the order found
 */
public record Anomaly(String name, long count, List<Example> examples) {

    /** Examples kept per anomaly. */
    public static final int MAX_EXAMPLES = 10;

    /** One occurrence: where and which value; {@code detail} says what was seen. */
    public record Example(String topic, int partition, long offset, String value, String detail) {
    }

    public Anomaly {
        examples = List.copyOf(examples);
    }

    public boolean found() {
        return count > 0;
    }

    /** Counts occurrences and keeps the first {@link #MAX_EXAMPLES}. */
    static final class Builder {
        private final String name;
        private long count;
        private final List<Example> examples = new ArrayList<>();

        Builder(String name) {
            this.name = name;
        }

        void add(String topic, int partition, long offset, String value, String detail) {
            count++;
            if (examples.size() < MAX_EXAMPLES) {
                examples.add(new Example(topic, partition, offset, value, detail));
            }
        }

        Anomaly build() {
            return new Anomaly(name, count, examples);
        }
    }
}
