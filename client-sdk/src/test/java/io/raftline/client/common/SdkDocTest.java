package io.raftline.client.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.client.common.config.ClientConfigDoc;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.errors.RetriableException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/sdk.md says what the SDK does: its config tables are the SDK's definitions, its error lists the classes'. */
class SdkDocTest {

    private static String doc() throws Exception {
        return Files.readString(Path.of("..", "docs", "sdk.md"), StandardCharsets.UTF_8);
    }

    @Test
    void theConfigTablesAreTheSdksOwnDefinitions() throws Exception {
        String doc = doc();
        String start = "<!-- config-tables:start -->\n";
        String end = "<!-- config-tables:end -->";
        String tables = doc.substring(doc.indexOf(start) + start.length(), doc.indexOf(end));
        assertThat(tables).as("regenerate with ClientConfigDoc").isEqualTo(ClientConfigDoc.render());
    }

    @Test
    void theErrorListsSayWhichExceptionsAreRetriable() throws Exception {
        String doc = doc();
        String errors = doc.substring(doc.indexOf("## Errors"), doc.indexOf("## Delivery semantics"));
        int notRetriable = errors.indexOf("Not\nretriable");
        assertThat(notRetriable).isPositive();
        for (String name : exceptionNames(errors.substring(errors.indexOf("`RetriableException`"), notRetriable))) {
            assertThat(RetriableException.class.isAssignableFrom(exception(name))).as(name + " is retriable").isTrue();
        }
        List<String> others = exceptionNames(errors.substring(notRetriable));
        assertThat(others).isNotEmpty();
        for (String name : others) {
            assertThat(RetriableException.class.isAssignableFrom(exception(name))).as(name + " is not retriable").isFalse();
        }
    }

    private static List<String> exceptionNames(String text) {
        List<String> names = new ArrayList<>();
        Matcher m = Pattern.compile("`(\\w+Exception)`").matcher(text);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    private static Class<?> exception(String simpleName) throws ClassNotFoundException {
        Class<?> c = Class.forName("io.raftline.client.errors." + simpleName);
        assertThat(RaftlineException.class.isAssignableFrom(c)).as(simpleName).isTrue();
        return c;
    }
}
