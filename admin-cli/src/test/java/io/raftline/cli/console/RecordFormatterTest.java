package io.raftline.cli.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.client.common.TimestampType;
import io.raftline.client.common.header.Header;
import io.raftline.client.common.header.Headers;
import io.raftline.client.consumer.ConsumerRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RecordFormatterTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ConsumerRecord<byte[], byte[]> record(byte[] key, byte[] value, TimestampType type, Header... headers) {
        return new ConsumerRecord<>("orders", 2, 17, 1_700_000_000_123L, type, key == null ? -1 : key.length,
            value == null ? -1 : value.length, key, value, new Headers(List.of(headers)), Optional.empty());
    }

    private static final ConsumerRecord<byte[], byte[]> WITH_ALL = record(utf8("k1"), utf8("v1"), TimestampType.CREATE_TIME,
        new Header("trace", utf8("42")), new Header("src", utf8("web")));
    private static final ConsumerRecord<byte[], byte[]> BARE = record(null, utf8("v2"), TimestampType.LOG_APPEND_TIME);

    private static String line(ConsumerRecord<byte[], byte[]> r, Encoding e, Map<String, String> props) {
        return RecordFormatter.fromProperties(false, e, props).format(r);
    }

    @Test
    void fieldsInKafkasOrderWithItsTimestampAndHeaderForms() {
        Object[][] table = {
            {Map.of(), WITH_ALL, "v1"},
            {Map.of("print.key", "true"), WITH_ALL, "k1\tv1"},
            {Map.of("print.key", "true"), BARE, "null\tv2"},
            {Map.of("print.partition", "true", "print.offset", "true", "print.key", "true"), WITH_ALL, "2\t17\tk1\tv1"},
            {Map.of("print.timestamp", "true"), WITH_ALL, "CreateTime:1700000000123\tv1"},
            {Map.of("print.timestamp", "true"), BARE, "LogAppendTime:1700000000123\tv2"},
            {Map.of("print.headers", "true"), WITH_ALL, "trace:42,src:web\tv1"},
            {Map.of("print.headers", "true"), BARE, "NO_HEADERS\tv2"},
            {Map.of("print.timestamp", "true", "print.partition", "true", "print.offset", "true", "print.headers", "true",
                "print.key", "true"), WITH_ALL, "CreateTime:1700000000123\t2\t17\ttrace:42,src:web\tk1\tv1"},
            {Map.of("print.key", "true", "key.separator", " | ", "print.headers", "true", "headers.separator", ";"), WITH_ALL,
                "trace:42;src:web | k1 | v1"},
            {Map.of("print.key", "true", "print.value", "false"), WITH_ALL, "k1"},
            {Map.of("print.key", "TRUE", "null.literal", "<none>"), BARE, "<none>\tv2"},
        };
        for (Object[] row : table) {
            @SuppressWarnings("unchecked")
            Map<String, String> props = (Map<String, String>) row[0];
            @SuppressWarnings("unchecked")
            ConsumerRecord<byte[], byte[]> r = (ConsumerRecord<byte[], byte[]>) row[1];
            assertThat(line(r, Encoding.utf8, props)).as("%s", props).isEqualTo(row[2]);
        }
    }

    @Test
    void binaryValuesPrintSafelyInBase64AndHex() {
        byte[] binary = {0, (byte) 0xff, '\n', 'a'};
        ConsumerRecord<byte[], byte[]> r = record(new byte[] {1, 2}, binary, TimestampType.CREATE_TIME,
            new Header("h", new byte[] {(byte) 0xca, (byte) 0xfe}));
        Map<String, String> all = Map.of("print.key", "true", "print.headers", "true");
        assertThat(line(r, Encoding.hex, all)).isEqualTo("h:cafe\t0102\t00ff0a61");
        assertThat(line(r, Encoding.base64, all)).isEqualTo("h:yv4=\tAQI=\tAP8KYQ==");
        assertThat(Encoding.utf8.encode(new byte[] {(byte) 0xff})).isEqualTo("\uFFFD");
        assertThat(Encoding.hex.encode(null)).isNull();
    }

    @Test
    void jsonIsOneObjectPerRecordWithEveryField() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        String text = RecordFormatter.fromProperties(true, Encoding.utf8, Map.of()).format(WITH_ALL);
        assertThat(text).doesNotContain("\n");
        JsonNode o = mapper.readTree(text);
        assertThat(o.get("topic").asText()).isEqualTo("orders");
        assertThat(o.get("partition").asInt()).isEqualTo(2);
        assertThat(o.get("offset").asLong()).isEqualTo(17);
        assertThat(o.get("timestamp").asLong()).isEqualTo(1_700_000_000_123L);
        assertThat(o.get("timestampType").asText()).isEqualTo("CREATE_TIME");
        assertThat(o.get("key").asText()).isEqualTo("k1");
        assertThat(o.get("value").asText()).isEqualTo("v1");
        assertThat(o.get("headers").toString()).isEqualTo("[{\"key\":\"trace\",\"value\":\"42\"},{\"key\":\"src\",\"value\":\"web\"}]");

        JsonNode bare = mapper.readTree(RecordFormatter.fromProperties(true, Encoding.base64, Map.of()).format(BARE));
        assertThat(bare.get("key").isNull()).isTrue();
        assertThat(bare.get("value").asText()).isEqualTo("djI=");
        assertThat(bare.get("headers")).isEmpty();
        JsonNode newline = mapper.readTree(RecordFormatter.fromProperties(true, Encoding.utf8, Map.of())
            .format(record(null, utf8("a\nb"), TimestampType.CREATE_TIME)));
        assertThat(newline.get("value").asText()).isEqualTo("a\nb");
    }

    @Test
    void refusesUnknownPropertiesAndBadFlags() {
        assertThatThrownBy(() -> RecordFormatter.fromProperties(false, Encoding.utf8, Map.of("print.timestmap", "true")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown --property 'print.timestmap'");
        assertThatThrownBy(() -> RecordFormatter.fromProperties(false, Encoding.utf8, Map.of("print.key", "yes")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("print.key must be true or false");
    }
}
