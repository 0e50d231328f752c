package io.raftline.cli.command;

import io.raftline.client.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The CSV of {@code groups reset-offsets --export} and {@code --from-file}, as kafka-consumer-groups writes and reads
 * it: one partition a line, {@code topic,partition,offset} for one group, {@code group,topic,partition,offset} for
 * several. Blank lines are skipped.
 */
public final class ResetPlanCsv {

    /** One line: the group is null in the three-column form (the plan of the group named on the command line). */
    public record Row(String group, TopicPartition partition, long offset) {
    }

    private ResetPlanCsv() {
    }

    /** The rows in order; IllegalArgumentException naming the first line that is not a plan line. */
    public static List<Row> parse(String text) {
        List<Row> rows = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        int columns = -1;
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n].strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] cells = line.split(",", -1);
            if (cells.length != 3 && cells.length != 4) {
                throw bad(n, line, "expected topic,partition,offset or group,topic,partition,offset");
            }
            if (columns != -1 && cells.length != columns) {
                throw bad(n, line, "every line needs the same number of columns");
            }
            columns = cells.length;
            int first = cells.length - 3;
            String group = first == 1 ? cells[0].strip() : null;
            String topic = cells[first].strip();
            if (topic.isEmpty() || (group != null && group.isEmpty())) {
                throw bad(n, line, "an empty group or topic");
            }
            int partition;
            long offset;
            try {
                partition = Integer.parseInt(cells[first + 1].strip());
                offset = Long.parseLong(cells[first + 2].strip());
            } catch (NumberFormatException e) {
                throw bad(n, line, "the partition and the offset must be numbers");
            }
            if (partition < 0 || offset < 0) {
                throw bad(n, line, "the partition and the offset must not be negative");
            }
            rows.add(new Row(group, new TopicPartition(topic, partition), offset));
        }
        return rows;
    }

    /** The plan as CSV, with the group column when {@code withGroup}; partitions in the maps' order. */
    public static String format(Map<String, Map<TopicPartition, Long>> plan, boolean withGroup) {
        StringBuilder out = new StringBuilder();
        plan.forEach((group, offsets) -> offsets.forEach((tp, offset) -> {
            if (withGroup) {
                out.append(group).append(',');
            }
            out.append(tp.topic()).append(',').append(tp.partition()).append(',').append(offset).append('\n');
        }));
        return out.toString();
    }

    private static IllegalArgumentException bad(int lineIndex, String line, String why) {
        return new IllegalArgumentException("line " + (lineIndex + 1) + " '" + line + "': " + why);
    }
}
