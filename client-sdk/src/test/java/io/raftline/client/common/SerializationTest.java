package io.raftline.client.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

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
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

class SerializationTest {

    /** Round trips over 1000 examples each, from fixed seeds so that a failure replays. */
    @Test
    void stringsRoundTrip() {
        qt().withFixedSeed(1L).withExamples(1000).forAll(strings(255))
            .checkAssert(s -> assertThat(new StringDeserializer().deserialize("t", new StringSerializer().serialize("t", s))).isEqualTo(s));
    }

    @Test
    void integersRoundTrip() {
        qt().withFixedSeed(2L).withExamples(1000).forAll(integers().all())
            .checkAssert(i -> assertThat(new IntegerDeserializer().deserialize("t", new IntegerSerializer().serialize("t", i))).isEqualTo(i));
    }

    @Test
    void longsRoundTrip() {
        qt().withFixedSeed(3L).withExamples(1000).forAll(longs().all())
            .checkAssert(l -> assertThat(new LongDeserializer().deserialize("t", new LongSerializer().serialize("t", l))).isEqualTo(l));
    }

    /**
     * Strings of 0..maxLength UTF-16 chars drawn from the whole Basic Multilingual Plane except surrogates, private-use
     * characters and noncharacters (U+FDD0..U+FDEF, U+FFFE, U+FFFF).
     */
    static Gen<String> strings(int maxLength) {
        int low = 0xD800;
        int mid = 0xFDD0 - 0xF900;
        int high = 0xFFFE - 0xFDF0;
        Gen<Integer> chars = Generate.range(0, low + mid + high - 1)
            .map(i -> i < low ? i : i < low + mid ? 0xF900 + i - low : 0xFDF0 + i - low - mid);
        Gen<Integer> lengths = Generate.range(0, maxLength);
        Gen<String> gen = in -> {
            char[] out = new char[lengths.generate(in)];
            for (int i = 0; i < out.length; i++) {
                out[i] = (char) chars.generate(in).intValue();
            }
            return new String(out);
        };
        return gen.describedAs(SerializationTest::escaped);
    }

    /** A failing string as a Java literal, so that invisible and unusual characters can be read from the report. */
    private static String escaped(String s) {
        StringBuilder b = new StringBuilder("\"");
        s.chars().forEach(c -> b.append(c >= 0x20 && c < 0x7F && c != '"' && c != '\\' ? String.valueOf((char) c)
            : String.format("\\u%04x", c)));
        return b.append('"').toString();
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
