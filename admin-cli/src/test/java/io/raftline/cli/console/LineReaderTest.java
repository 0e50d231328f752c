package io.raftline.cli.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.raftline.client.common.header.Header;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LineReaderTest {

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** The record as key|value|h=v;h=v, so a table can say it in one string. */
    private static String read(Map<String, String> props, String line) {
        LineReader.Parsed p = LineReader.fromProperties(props).parse(line);
        List<String> headers = new ArrayList<>();
        for (Header h : p.headers()) {
            headers.add(h.key() + "=" + text(h.value()));
        }
        return text(p.key()) + "|" + text(p.value()) + "|" + String.join(";", headers);
    }

    @Test
    void linesAsKafkasConsoleProducerReadsThem() {
        Map<String, String> key = Map.of("parse.key", "true");
        Map<String, String> headers = Map.of("parse.headers", "true");
        Map<String, String> both = Map.of("parse.key", "true", "parse.headers", "true");
        Object[][] table = {
            {Map.of(), "plain value", "null|plain value|"},
            {Map.of(), "a\tb", "null|a\tb|"},
            {key, "k1\tv1", "k1|v1|"},
            {key, "k1\tv1\tmore", "k1|v1\tmore|"},
            {key, "\tv", "|v|"},
            {Map.of("parse.key", "true", "key.separator", "::"), "k::v", "k|v|"},
            {headers, "h1:v1,h2:v2\tvalue", "null|value|h1=v1;h2=v2"},
            {headers, "\tvalue", "null|value|"},
            {headers, "h1:a:b\tvalue", "null|value|h1=a:b"},
            {both, "h1:v1,h2:v2\tkey\tvalue", "key|value|h1=v1;h2=v2"},
            {Map.of("parse.key", "true", "parse.headers", "true", "headers.delimiter", "|", "headers.separator", ";",
                "headers.key.separator", "="), "a=1;b=2|k\tv", "k|v|a=1;b=2"},
            {Map.of("parse.key", "true", "parse.headers", "true", "null.marker", "NULL"), "h:NULL\tNULL\tNULL", "null|null|h=null"},
            {Map.of("parse.headers", "true", "headers.separator", "."), "a:1.b:2\tv", "null|v|a=1;b=2"},
        };
        for (Object[] row : table) {
            @SuppressWarnings("unchecked")
            Map<String, String> props = (Map<String, String>) row[0];
            assertThat(read(props, (String) row[1])).as("%s on '%s'", props, row[1]).isEqualTo(row[2]);
        }
    }

    @Test
    void aLineWithoutItsSeparatorIsRefusedSayingWhich() {
        assertThatThrownBy(() -> read(Map.of("parse.key", "true"), "nokey")).hasMessage("no key separator '\\t' in the line");
        assertThatThrownBy(() -> read(Map.of("parse.key", "true", "key.separator", ":"), "nokey"))
            .hasMessage("no key separator ':' in the line");
        assertThatThrownBy(() -> read(Map.of("parse.headers", "true"), "value"))
            .hasMessage("no headers delimiter '\\t' in the line");
        assertThatThrownBy(() -> read(Map.of("parse.headers", "true"), "h1:v1,h2\tvalue"))
            .hasMessage("no header key separator ':' in the header 'h2'");
        assertThatThrownBy(() -> LineReader.fromProperties(Map.of("parse.kye", "true")))
            .hasMessageContaining("unknown --property 'parse.kye'");
        assertThatThrownBy(() -> LineReader.fromProperties(Map.of("parse.key", "1"))).hasMessageContaining("true or false");
        assertThatThrownBy(() -> LineReader.fromProperties(Map.of("key.separator", ""))).hasMessageContaining("must not be empty");
    }
}
