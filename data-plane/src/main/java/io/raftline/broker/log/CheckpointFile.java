package io.raftline.broker.log;

import io.raftline.common.io.Fsync;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A small text file replaced atomically: written to {@code <name>.tmp}, fsynced, renamed over the old one, and the
 * directory fsynced, so a crash leaves either the old or the new content. {@link #writeUnsynced} skips both fsyncs
 * (for files whose owner makes them durable later with {@link #sync}): a crash may then leave the old content, the
 * new one, or an empty or torn file, and the reader must cope. Format (all checkpoint files here):
 * <pre>
 *   0                 version
 *   N                 number of entries
 *   entry line × N    space-separated fields
 * </pre>
 */
final class CheckpointFile {

    private static final int VERSION = 0;

    private CheckpointFile() {
    }

    static void write(Path file, List<String> entries) throws IOException {
        write(file, entries, true);
    }

    /** Replaces the file atomically (temp file and rename) without any fsync; {@link #sync} makes it durable. */
    static void writeUnsynced(Path file, List<String> entries) throws IOException {
        write(file, entries, false);
    }

    /** Fsyncs the file's content and then its directory (the rename that put it there). */
    static void sync(Path file) throws IOException {
        Fsync.file(file);
        fsyncDirectory(file.getParent());
    }

    private static void write(Path file, List<String> entries, boolean durable) throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append(VERSION).append('\n').append(entries.size()).append('\n');
        for (String e : entries) {
            sb.append(e).append('\n');
        }
        byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        if (durable) {
            Fsync.replace(file, out -> out.write(bytes));
            return;
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, bytes);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The entry lines, or an empty list if the file does not exist. */
    static List<String> read(Path file) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return List.of();
        }
        if (lines.size() < 2) {
            throw new IOException(file + ": truncated checkpoint (no version and count lines)");
        }
        if (!lines.get(0).trim().equals(Integer.toString(VERSION))) {
            throw new IOException(file + ": unknown checkpoint version '" + lines.get(0) + "'");
        }
        int count;
        try {
            count = Integer.parseInt(lines.get(1).trim());
        } catch (NumberFormatException e) {
            throw new IOException(file + ": bad entry count '" + lines.get(1) + "'");
        }
        if (count < 0 || lines.size() - 2 < count) {
            throw new IOException(file + ": says " + count + " entries but holds " + (lines.size() - 2));
        }
        return new ArrayList<>(lines.subList(2, 2 + count));
    }

    static void fsyncDirectory(Path dir) throws IOException {
        Fsync.directory(dir);
    }
}
