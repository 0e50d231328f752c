package io.raftline.client.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.client.common.serialization.ByteArrayDeserializer;
import io.raftline.client.common.serialization.ByteArraySerializer;
import io.raftline.client.common.serialization.IntegerDeserializer;
import io.raftline.client.common.serialization.IntegerSerializer;
import io.raftline.client.common.serialization.LongDeserializer;
import io.raftline.client.common.serialization.LongSerializer;
import io.raftline.client.common.serialization.StringDeserializer;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.common.serialization.UUIDDeserializer;
import io.raftline.client.common.serialization.UUIDSerializer;
import io.raftline.client.errors.SerializationException;
import java.util.UUID;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class SerializationTest {

    @Property
    void stringsRoundTrip(@ForAll String s) {
        assertThat(new StringDeserializer().deserialize("t", new StringSerializer().serialize("t", s))).isEqualTo(s);
    }

    @Property
    void integersRoundTrip(@ForAll int i) {
        assertThat(new IntegerDeserializer().deserialize("t", new IntegerSerializer().serialize("t", i))).isEqualTo(i);
    }

    @Property
    void longsRoundTrip(@ForAll long l) {
        assertThat(new LongDeserializer().deserialize("t", new LongSerializer().serialize("t", l))).isEqualTo(l);
    }

    @Test
    void kafkaCompatibleEncodings() {
        assertThat(new IntegerSerializer().serialize("t", 258)).containsExactly(0, 0, 1, 2);
        assertThat(new LongSerializer().serialize("t", 1L)).containsExactly(0, 0, 0, 0, 0, 0, 0, 1);
        UUID id = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        assertThat(new String(new UUIDSerializer().serialize("t", id), java.nio.charset.StandardCharsets.UTF_8))
            .isEqualTo(id.toString());
        assertThat(new UUIDDeserializer().deserialize("t", new UUIDSerializer().serialize("t", id))).isEqualTo(id);
        byte[] raw = {1, 2, 3};
        assertThat(new ByteArrayDeserializer().deserialize("t", new ByteArraySerializer().serialize("t", raw))).isSameAs(raw);
    }

    @Test
    void nullsStayNull() {
        assertThat(new StringSerializer().serialize("t", null)).isNull();
        assertThat(new IntegerDeserializer().deserialize("t", null)).isNull();
        assertThat(new UUIDDeserializer().deserialize("t", null)).isNull();
    }

    @Test
    void wrongLengthsAreSerializationErrors() {
        assertThatThrownBy(() -> new IntegerDeserializer().deserialize("t", new byte[3])).isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> new LongDeserializer().deserialize("t", new byte[4])).isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> new UUIDDeserializer().deserialize("t", new byte[]{'x'})).isInstanceOf(SerializationException.class);
    }
}
