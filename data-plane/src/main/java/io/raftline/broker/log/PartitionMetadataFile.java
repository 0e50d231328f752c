package io.raftline.broker.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Base64;
import java.util.List;

/**
 * {@code partition.metadata}: which topic (by id) a partition directory belongs to, so a topic deleted and
 * re-created with the same name is never confused with the old one. Format:
 * <pre>
 *   version: 0
 *   topic_id: &lt;22-char URL-safe base64 of the 16-byte id, no padding&gt;
 * </pre>
 */
final class PartitionMetadataFile {

    static final String FILE_NAME = "partition.metadata";

    private PartitionMetadataFile() {
    }

    static String encode(byte[] topicId) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(topicId);
    }

    static void write(Path dir, byte[] topicId) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        Path tmp = dir.resolve(FILE_NAME + ".tmp");
        String text = "version: 0\ntopic_id: " + encode(topicId) + "\n";
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        CheckpointFile.fsyncDirectory(dir);
    }

    /** The stored topic id, or null if the file does not exist. */
    static byte[] read(Path dir) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return null;
        }
        if (lines.size() < 2 || !lines.get(0).trim().equals("version: 0") || !lines.get(1).startsWith("topic_id: ")) {
            throw new IOException(file + ": not a version 0 partition metadata file");
        }
        try {
            return Base64.getUrlDecoder().decode(lines.get(1).substring("topic_id: ".length()).trim());
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": bad topic id '" + lines.get(1) + "'");
        }
    }
}
