package io.raftline.broker.replica;

/** A partition by topic name, as requests name it. */
public record TopicPartition(String topic, int partition) {

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
