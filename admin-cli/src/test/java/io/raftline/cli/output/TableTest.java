package io.raftline.cli.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableTest {

    /** The index where each column of each line starts, found from the header's column names. */
    static void assertAligned(String text, String... headers) {
        List<String> lines = text.lines().toList();
        String header = lines.get(0);
        int[] starts = new int[headers.length];
        for (int i = 0; i < headers.length; i++) {
            starts[i] = header.indexOf(headers[i]);
            assertThat(starts[i]).as("header %s in %s", headers[i], header).isGreaterThanOrEqualTo(0);
        }
        for (String line : lines) {
            for (int i = 1; i < starts.length; i++) {
                assertThat(line.length()).as("line '%s' reaches column %s", line, headers[i]).isGreaterThan(starts[i]);
                assertThat(line.charAt(starts[i] - 1)).as("a space before column %s in '%s'", headers[i], line).isEqualTo(' ');
                assertThat(line.charAt(starts[i])).as("column %s starts at %d in '%s'", headers[i], starts[i], line)
                    .isNotEqualTo(' ');
            }
        }
    }

    @Test
    void everyColumnStartsAtTheSameIndexOnEveryLine() {
        StringWriter out = new StringWriter();
        new Table("TOPIC", "PARTITION", "LEADER", "ISR")
            .row("a", 0, 1, "1,2,3")
            .row("a-much-longer-topic-name", 12345, null, "1")
            .row("b", 7, 3, "3")
            .print(new PrintWriter(out));
        assertAligned(out.toString(), "TOPIC", "PARTITION", "LEADER", "ISR");
        assertThat(out.toString()).doesNotContain(" \n");
        assertThat(out.toString().lines().toList().get(2)).contains("-");
    }

    @Test
    void aRowOfTheWrongWidthIsRefused() {
        assertThatThrownBy(() -> new Table("A", "B").row("only one")).isInstanceOf(IllegalArgumentException.class);
    }
}
