package io.raftline.broker.kafka;

/** Whether a Kafka frame's declared size may be read: the decision of {@link KafkaFrameDecoder}, as a pure function. */
final class FrameSize {

    private FrameSize() {
    }

    /** Null when a frame of {@code size} bytes may be read, else why not. */
    static String problem(int size, int maxFrameBytes) {
        if (size < 0) {
            return "a frame of negative size " + size + " (not Kafka's protocol?)";
        }
        if (size > maxFrameBytes) {
            return "a frame of " + size + " bytes is above socket.request.max.bytes (" + maxFrameBytes + ")";
        }
        return null;
    }
}
