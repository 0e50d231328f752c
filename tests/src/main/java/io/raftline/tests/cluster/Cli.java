package io.raftline.tests.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.cli.RaftlineCli;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Runs {@code raftline} commands in-process against a cluster and captures what they print. */
public final class Cli {

    /** One command's outcome. */
    public record Result(int exitCode, String out, String err) {
        public List<String> outLines() {
            return out.isEmpty() ? List.of() : List.of(out.split("\n"));
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private final String bootstrap;

    public Cli(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    public Result run(String... args) {
        return runWithInput("", args);
    }

    public Result runWithInput(String stdin, String... args) {
        List<String> full = new ArrayList<>(List.of(args));
        if (bootstrap != null && needsBootstrap(args)) {
            full.add("--bootstrap-server");
            full.add(bootstrap);
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = RaftlineCli.run(full.toArray(new String[0]),
            new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), new PrintWriter(out, true),
            new PrintWriter(err, true));
        return new Result(code, out.toString(), err.toString());
    }

    /**
     * Runs the command with {@code --output json} and returns its document; fails (AssertionError, with the output)
     * unless it exits 0 with exactly one JSON document on one line.
     */
    public JsonNode json(String... args) {
        List<String> full = new ArrayList<>(List.of(args));
        full.add("--output");
        full.add("json");
        return document(run(full.toArray(new String[0])));
    }

    /** The one-line JSON document of a command that exited 0; fails (AssertionError, with the output) otherwise. */
    public static JsonNode document(Result r) {
        if (r.exitCode() != 0 || r.outLines().size() != 1) {
            throw new AssertionError("expected exit 0 and one JSON document on one line: " + r);
        }
        try {
            return JSON.readTree(r.out());
        } catch (JsonProcessingException e) {
            throw new AssertionError("not JSON: " + r, e);
        }
    }

    private static boolean needsBootstrap(String[] args) {
        for (String a : args) {
            if (a.equals("--bootstrap-server") || a.equals("--help") || a.equals("--version")) {
                return false;
            }
        }
        return args.length > 0 && !args[0].equals("dev") && !args[0].equals("storage") && !args[0].equals("server");
    }
}
