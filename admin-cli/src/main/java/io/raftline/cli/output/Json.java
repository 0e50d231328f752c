package io.raftline.cli.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/** The JSON documents the CLI prints: one per command, field names as the CLI contract fixes them. */
public final class Json {

    public static final ObjectMapper MAPPER = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private Json() {
    }

    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    public static ArrayNode array() {
        return MAPPER.createArrayNode();
    }

    public static void print(PrintWriter out, Object document) {
        try {
            out.println(MAPPER.writeValueAsString(document));
            out.flush();
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String write(Object document) {
        try {
            return MAPPER.writeValueAsString(document);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
