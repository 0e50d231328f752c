package io.raftline.client.producer;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Interceptors that record the order of their calls and tag values, for ProducerTest. */
public abstract class RecordingInterceptor implements ProducerInterceptor<String, String> {

    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    private final String name;

    RecordingInterceptor(String name) {
        this.name = name;
    }

    @Override
    public ProducerRecord<String, String> onSend(ProducerRecord<String, String> record) {
        EVENTS.add(name + ".onSend");
        return new ProducerRecord<>(record.topic(), record.partition(), record.key(), record.value() + "-" + name);
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        EVENTS.add(name + ".onAck");
    }

    @Override
    public void close() {
        EVENTS.add(name + ".close");
    }

    /** The first in the list. */
    public static final class First extends RecordingInterceptor {
        public First() {
            super("first");
        }
    }

    /** The second in the list. */
    public static final class Second extends RecordingInterceptor {
        public Second() {
            super("second");
        }
    }
}
