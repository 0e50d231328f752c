package io.raftline.cli.verify;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code committedOffsetRegression}: per group and partition, a successful commit, or a read-back of the committed
 * offset, lower than a commit that had already succeeded when it began. Commits that overlap in time are not ordered,
 * so they never count against each other. Counted per regressing commit or read.
 */
public final class CommittedOffsetRegression implements Check {

    private record Key(String group, String topic, int partition) {
    }

    /** A commit or a read of the committed offset: it must not be below what had been committed before {@code beganNs}. */
    private record Step(long beganNs, long offset, String what) {
    }

    @Override
    public String name() {
        return "committedOffsetRegression";
    }

    @Override
    public Anomaly check(List<Event> events) {
        Map<Key, List<Event.Commit>> commits = new LinkedHashMap<>();
        Map<Key, List<Step>> steps = new LinkedHashMap<>();
        for (Event e : events) {
            if (e instanceof Event.Commit c && c.ok()) {
                Key key = new Key(c.group(), c.topic(), c.partition());
                commits.computeIfAbsent(key, k -> new ArrayList<>()).add(c);
                steps.computeIfAbsent(key, k -> new ArrayList<>()).add(new Step(c.invokeNs(), c.offset(), "commit by " + c.process()));
            } else if (e instanceof Event.CommittedRead r) {
                steps.computeIfAbsent(new Key(r.group(), r.topic(), r.partition()), k -> new ArrayList<>())
                    .add(new Step(r.atNs(), r.offset(), "committed offset read back"));
            }
        }
        Anomaly.Builder found = new Anomaly.Builder(name());
        for (Map.Entry<Key, List<Step>> e : steps.entrySet()) {
            List<Event.Commit> done = new ArrayList<>(commits.getOrDefault(e.getKey(), List.of()));
            done.sort(Comparator.comparingLong(Event.Commit::atNs));
            List<Step> ordered = new ArrayList<>(e.getValue());
            ordered.sort(Comparator.comparingLong(Step::beganNs));
            int next = 0;
            long highest = -1;
            Event.Commit highestBy = null;
            for (Step step : ordered) {
                while (next < done.size() && done.get(next).atNs() < step.beganNs()) {
                    Event.Commit c = done.get(next++);
                    if (c.offset() > highest) {
                        highest = c.offset();
                        highestBy = c;
                    }
                }
                if (step.offset() < highest) {
                    Key key = e.getKey();
                    found.add(key.topic(), key.partition(), step.offset(), null, "group " + key.group() + ": " + step.what()
                        + " at " + Lost.ms(step.beganNs()) + " is " + step.offset() + ", below " + highest + " committed by "
                        + highestBy.process() + " at " + Lost.ms(highestBy.atNs()));
                }
            }
        }
        return found.build();
    }
}
