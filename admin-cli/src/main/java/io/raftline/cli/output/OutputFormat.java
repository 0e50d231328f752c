package io.raftline.cli.output;

/** {@code --output}: a table for people or one JSON document on stdout for scripts. */
public enum OutputFormat {
    table, json
}
