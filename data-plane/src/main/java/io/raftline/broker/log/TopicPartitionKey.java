package io.raftline.broker.log;

/** A partition by topic name and number: the key of the log manager's maps and checkpoint files. */
public record TopicPartitionKey(String topic, int partition) {

    /** The partition directory name, {@code <topic>-<partition>}. */
    public String dirName() {
        return topic + "-" + partition;
    }

    /** Parses a partition directory name (the partition is after the last '-'); null if it is not one. */
    public static TopicPartitionKey parseDirName(String name) {
        int dash = name.lastIndexOf('-');
        if (dash <= 0 || dash == name.length() - 1) {
            return null;
        }
        try {
            int partition = Integer.parseInt(name.substring(dash + 1));
            return partition < 0 ? null : new TopicPartitionKey(name.substring(0, dash), partition);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
