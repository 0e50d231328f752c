package io.raftline.common.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The value of the topic configs {@code leader.replication.throttled.replicas} and
 * {@code follower.replication.throttled.replicas}, in Kafka's format: a comma-separated list of
 * {@code partition:broker} pairs (the replicas of the topic whose replication traffic counts against the broker's
 * throttle), or {@code *} alone for every replica of the topic. Empty: none.
 *
 * @param all      {@code *}: every partition, on every broker
 * @param replicas otherwise, per partition the brokers listed
 */
public record ThrottledReplicas(boolean all, Map<Integer, Set<Integer>> replicas) {

    public static final ThrottledReplicas NONE = new ThrottledReplicas(false, Map.of());

    /** Whether the replica of {@code partition} on {@code broker} is throttled. */
    public boolean contains(int partition, int broker) {
        return all || replicas.getOrDefault(partition, Set.of()).contains(broker);
    }

    /** Parses the list as {@link ConfigDef} splits it; throws IllegalArgumentException naming the bad item. */
    public static ThrottledReplicas parse(List<?> items) {
        if (items.size() == 1 && "*".equals(String.valueOf(items.get(0)).trim())) {
            return new ThrottledReplicas(true, Map.of());
        }
        Map<Integer, Set<Integer>> out = new TreeMap<>();
        for (Object o : items) {
            String item = String.valueOf(o).trim();
            String[] pb = item.split(":", -1);
            int partition;
            int broker;
            try {
                if (pb.length != 2) {
                    throw new NumberFormatException();
                }
                partition = Integer.parseInt(pb[0].trim());
                broker = Integer.parseInt(pb[1].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + item + "' is not partition:broker (a list of them, or * alone)");
            }
            if (partition < 0 || broker < 0) {
                throw new IllegalArgumentException("'" + item + "' names a negative partition or broker");
            }
            out.computeIfAbsent(partition, k -> new LinkedHashSet<>()).add(broker);
        }
        return new ThrottledReplicas(false, out);
    }

    /** Parses the text of the config (empty: none). */
    public static ThrottledReplicas parse(String text) {
        if (text == null || text.isBlank()) {
            return NONE;
        }
        return parse(List.of(text.split(",", -1)));
    }

    /** Kafka's text for these replicas: {@code 0:1,0:2,1:3}, sorted by partition. */
    public static String format(Map<Integer, ? extends Collection<Integer>> replicas) {
        List<String> pairs = new ArrayList<>();
        new TreeMap<>(replicas).forEach((p, brokers) -> brokers.forEach(b -> pairs.add(p + ":" + b)));
        return String.join(",", pairs);
    }

    /** The ConfigDef validator of a LIST value. */
    public static ConfigDef.Validator validator() {
        return v -> {
            try {
                parse((List<?>) v);
                return null;
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        };
    }
}
