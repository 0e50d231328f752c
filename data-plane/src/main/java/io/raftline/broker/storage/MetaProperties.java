package io.raftline.broker.storage;

import io.raftline.common.io.Fsync;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * {@code meta.properties}: what {@code raftline storage format} writes into every log dir and the metadata
 * dir, and what a node checks before it touches a dir. Format version 1:
 * <pre>
 * version=1
 * cluster.id=&lt;22-char id&gt;
 * node.id=&lt;id&gt;
 * directory.id=&lt;22-char id&gt;
 * </pre>
 * A node refuses a dir without the file, with another cluster's id, another node's id, or a version newer than
 * {@link #CURRENT_VERSION}.
 */
public record MetaProperties(int version, String clusterId, int nodeId, String directoryId) {

    public static final String FILE_NAME = "meta.properties";
    public static final int CURRENT_VERSION = 1;

    public static Path file(Path dir) {
        return dir.resolve(FILE_NAME);
    }

    /** Reads the file in {@code dir}; null when there is none. Throws {@link StorageException} if it is unreadable. */
    public static MetaProperties read(Path dir) {
        Path file = file(dir);
        if (!Files.exists(file)) {
            return null;
        }
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (IOException e) {
            throw new StorageException("cannot read " + file + ": " + e.getMessage());
        }
        try {
            int version = Integer.parseInt(required(props, "version", file));
            return new MetaProperties(version, required(props, "cluster.id", file),
                Integer.parseInt(required(props, "node.id", file)), props.getProperty("directory.id", ""));
        } catch (NumberFormatException e) {
            throw new StorageException(file + " is corrupt: " + e.getMessage());
        }
    }

    private static String required(Properties props, String key, Path file) {
        String value = props.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new StorageException(file + " has no " + key);
        }
        return value.trim();
    }

    /**
     * Writes atomically and durably ({@link Fsync#replace}: a temp file fsynced, renamed over, the directory fsynced),
     * so neither a crash nor a power loss leaves a half-written file or loses one that start-up has seen.
     */
    public void write(Path dir) {
        Properties props = new Properties();
        props.setProperty("version", Integer.toString(version));
        props.setProperty("cluster.id", clusterId);
        props.setProperty("node.id", Integer.toString(nodeId));
        props.setProperty("directory.id", directoryId);
        try {
            Files.createDirectories(dir);
            Fsync.replace(file(dir), out -> {
                Writer writer = new OutputStreamWriter(out, StandardCharsets.UTF_8);
                props.store(writer, "Written by raftline storage format; do not edit");
                writer.flush();
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file(dir) + ": " + e.getMessage(), e);
        }
    }
}
