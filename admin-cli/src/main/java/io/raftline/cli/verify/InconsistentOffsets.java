package io.raftline.cli.verify;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code inconsistentOffsets}: one position at which readers saw two or more different values (two consumers, or a
 * consumer and the final reads, disagree on what the log holds there), or replicas of a partition whose checksums
 * over one offset range differ ({@link Event.ReplicaChecksum}, counted once at the range's first offset). Counted per
 * position. Every read counts,
 * those of {@code acks=1} records too: what a consumer may read is committed, whatever the producer asked for.
 */
public final class InconsistentOffsets implements Check {

    /** The offsets of one partition that several replicas' checksums cover. */
    private record Range(String topic, int partition, long from, long to) {
    }

    @Override
    public String name() {
        return "inconsistentOffsets";
    }

    @Override
    public Anomaly check(List<Event> events) {
        Anomaly.Builder found = new Anomaly.Builder(name());
        for (Map.Entry<Position, Set<String>> e : Position.readValuesByPosition(events).entrySet()) {
            if (e.getValue().size() > 1) {
                Position p = e.getKey();
                found.add(p.topic(), p.partition(), p.offset(), e.getValue().iterator().next(), "values read there: " + e.getValue());
            }
        }
        // Replicas that disagree over one range: reported at the range's first offset, once per partition and range.
        Map<Range, Map<Long, List<Integer>>> checksums = new LinkedHashMap<>();
        for (Event e : events) {
            if (e instanceof Event.ReplicaChecksum c && c.toOffset() > c.fromOffset()) {
                checksums.computeIfAbsent(new Range(c.topic(), c.partition(), c.fromOffset(), c.toOffset()),
                    k -> new TreeMap<>()).computeIfAbsent(c.crc32c(), k -> new ArrayList<>()).add(c.broker());
            }
        }
        checksums.forEach((range, byCrc) -> {
            if (byCrc.size() > 1) {
                StringBuilder detail = new StringBuilder("replicas disagree over [" + range.from() + ", " + range.to() + "):");
                byCrc.forEach((crc, brokers) -> detail.append(" brokers ").append(brokers).append(" crc32c ")
                    .append(Long.toHexString(crc)).append(';'));
                found.add(range.topic(), range.partition(), range.from(), null, detail.substring(0, detail.length() - 1));
            }
        });
        return found.build();
    }
}
