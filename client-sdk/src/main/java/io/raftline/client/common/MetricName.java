package io.raftline.client.common;

import java.util.Map;

/**
 * The name of one value in a client's {@code metrics()}: the meter's name, its tags (the client id, and which
 * statistic of the meter this is: count, total, max, value ...).
 */
public record MetricName(String name, Map<String, String> tags) {

    public MetricName {
        tags = Map.copyOf(tags);
    }
}
