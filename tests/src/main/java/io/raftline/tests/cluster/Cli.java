package io.raftline.tests.cluster;

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

    private static boolean needsBootstrap(String[] args) {
        for (String a : args) {
            if (a.equals("--bootstrap-server") || a.equals("--help") || a.equals("--version")) {
                return false;
            }
        }
        return args.length > 0 && !args[0].equals("dev") && !args[0].equals("storage") && !args[0].equals("server");
    }
}
