package io.raftline.client.consumer;

import io.raftline.client.common.TopicPartition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Upper-cases values in onConsume, for ConsumerTest. */
public final class UpperCaseInterceptor implements ConsumerInterceptor<String, String> {

    @Override
    public ConsumerRecords<String, String> onConsume(ConsumerRecords<String, String> records) {
        Map<TopicPartition, List<ConsumerRecord<String, String>>> out = new LinkedHashMap<>();
        for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<String, String>> list = new ArrayList<>();
            for (ConsumerRecord<String, String> r : records.records(tp)) {
                list.add(new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.timestamp(), r.timestampType(),
                    r.serializedKeySize(), r.serializedValueSize(), r.key(), r.value().toUpperCase(Locale.ROOT), r.headers(),
                    r.leaderEpoch()));
            }
            out.put(tp, list);
        }
        return new ConsumerRecords<>(out);
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    }
}
