package io.raftline.client.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.client.common.serialization.ByteBufferDeserializer;
import io.raftline.client.common.serialization.ByteBufferSerializer;
import io.raftline.client.common.serialization.BytesDeserializer;
import io.raftline.client.common.serialization.BytesSerializer;
import io.raftline.client.common.serialization.Deserializer;
import io.raftline.client.common.serialization.DoubleDeserializer;
import io.raftline.client.common.serialization.DoubleSerializer;
import io.raftline.client.common.serialization.FloatDeserializer;
import io.raftline.client.common.serialization.FloatSerializer;
import io.raftline.client.common.serialization.IntegerDeserializer;
import io.raftline.client.common.serialization.IntegerSerializer;
import io.raftline.client.common.serialization.LongDeserializer;
import io.raftline.client.common.serialization.LongSerializer;
import io.raftline.client.common.serialization.Serializer;
import io.raftline.client.common.serialization.ShortDeserializer;
import io.raftline.client.common.serialization.ShortSerializer;
import io.raftline.client.common.serialization.VoidDeserializer;
import io.raftline.client.common.serialization.VoidSerializer;
import io.raftline.client.common.utils.Bytes;
import io.raftline.client.errors.SerializationException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** The fixed-width number serializers encode as Kafka's do (big-endian), byte for byte; the buffer kinds copy nothing. */
class NumberAndBufferSerializersTest {

    static Stream<Arguments> numbers() {
        return Stream.of(
            Arguments.of(new ShortSerializer(), new ShortDeserializer(), (short) -2, "fffe"),
            Arguments.of(new ShortSerializer(), new ShortDeserializer(), Short.MAX_VALUE, "7fff"),
            Arguments.of(new IntegerSerializer(), new IntegerDeserializer(), 258, "00000102"),
            Arguments.of(new LongSerializer(), new LongDeserializer(), -1L, "ffffffffffffffff"),
            Arguments.of(new FloatSerializer(), new FloatDeserializer(), 1.5f, "3fc00000"),
            Arguments.of(new FloatSerializer(), new FloatDeserializer(), Float.NaN, "7fc00000"),
            Arguments.of(new DoubleSerializer(), new DoubleDeserializer(), -0.0d, "8000000000000000"),
            Arguments.of(new DoubleSerializer(), new DoubleDeserializer(), 2.0d, "4000000000000000"));
    }

    @ParameterizedTest
    @MethodSource("numbers")
    <T> void numbersAreBigEndianAndRoundTrip(Serializer<T> ser, Deserializer<T> de, T value, String hex) {
        byte[] bytes = ser.serialize("t", value);
        assertThat(HexFormat.of().formatHex(bytes)).isEqualTo(hex);
        assertThat(de.deserialize("t", bytes)).isEqualTo(value);
        assertThat(ser.serialize("t", null)).isNull();
        assertThat(de.deserialize("t", null)).isNull();
        byte[] tooLong = new byte[bytes.length + 1];
        assertThatThrownBy(() -> de.deserialize("t", tooLong)).isInstanceOf(SerializationException.class)
            .hasMessageEndingWith("needs " + bytes.length + " bytes, got " + tooLong.length);
        assertThatThrownBy(() -> de.deserialize("t", new byte[0])).isInstanceOf(SerializationException.class);
    }

    @Test
    void aByteBufferIsSerializedFromPositionToLimitAndLeftAsItWas() {
        ByteBuffer buffer = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}, 1, 3);
        byte[] out = new ByteBufferSerializer().serialize("t", buffer);
        assertThat(out).containsExactly(2, 3, 4);
        assertThat(buffer.position()).isEqualTo(1);
        assertThat(buffer.limit()).isEqualTo(4);
        ByteBuffer direct = ByteBuffer.allocateDirect(2).put((byte) 9).put((byte) 8).flip();
        assertThat(new ByteBufferSerializer().serialize("t", direct)).containsExactly(9, 8);
        assertThat(direct.remaining()).isEqualTo(2);
        byte[] whole = {7, 7};
        assertThat(new ByteBufferSerializer().serialize("t", ByteBuffer.wrap(whole))).isSameAs(whole);
        assertThat(new ByteBufferDeserializer().deserialize("t", whole).array()).isSameAs(whole);
        assertThat(new ByteBufferSerializer().serialize("t", null)).isNull();
        assertThat(new ByteBufferDeserializer().deserialize("t", null)).isNull();
    }

    @Test
    void bytesHaveValueSemanticsAndUnsignedOrder() {
        byte[] raw = {1, (byte) 0xff};
        Bytes bytes = new BytesDeserializer().deserialize("t", raw);
        assertThat(bytes.get()).isSameAs(raw);
        assertThat(new BytesSerializer().serialize("t", bytes)).isSameAs(raw);
        assertThat(bytes).isEqualTo(Bytes.wrap(new byte[] {1, (byte) 0xff})).hasSameHashCodeAs(Bytes.wrap(raw.clone()));
        assertThat(bytes.toString()).isEqualTo("01ff");
        TreeSet<Bytes> sorted = new TreeSet<>(List.of(Bytes.wrap(new byte[] {(byte) 0x80}), Bytes.wrap(new byte[] {1}),
            Bytes.wrap(new byte[] {1, 0})));
        assertThat(sorted).extracting(Bytes::toString).containsExactly("01", "0100", "80");
        assertThat(Bytes.wrap(null)).isNull();
        assertThat(new BytesSerializer().serialize("t", null)).isNull();
    }

    @Test
    void voidIsAlwaysNull() {
        assertThat(new VoidSerializer().serialize("t", null)).isNull();
        assertThat(new VoidDeserializer().deserialize("t", null)).isNull();
        assertThatThrownBy(() -> new VoidDeserializer().deserialize("t", new byte[1])).isInstanceOf(SerializationException.class)
            .hasMessage("A Void key or value must be null, got 1 bytes");
    }
}
