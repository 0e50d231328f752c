package io.raftline.client.common.serialization;

/** A 64-bit integer as 8 big-endian bytes (Kafka's encoding). */
public class LongSerializer implements Serializer<Long> {

    @Override
    public byte[] serialize(String topic, Long data) {
        return FixedWidth.encode(data, Long.BYTES, b -> b.putLong(data));
    }
}
