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
 *
 * <p>Durability, and why a crash cannot get a log reused for the wrong topic. A new log's file is written when the
 * log is created, on the metadata thread, by a temp file and a rename but without fsync ({@link #writeUnsynced}); the
 * log makes it durable (the file, its directory and the log dir holding that) in its first flush,
 * before its recovery point first rises, i.e. before any of its batches counts as durable. So after a crash:
 * <ul>
 *   <li>a readable file names the topic id the log was created for (a rename is atomic: the file is either absent or
 *       written by us; a torn one does not parse, as {@link #read} checks the format and the id's 16 bytes), and the
 *       broker deletes the log if the topic now has another id, as before;</li>
 *   <li>a missing or torn file means the log was never flushed: none of its data was durable, it is loaded with no
 *       topic id, and the broker deletes every log without one as a stray before it applies the metadata
 *       ({@code ReplicaManager.deleteStrayLogs}); if its topic still exists the replica is re-created empty and
 *       fetches from the leader, which is what losing an unflushed log means anyway.</li>
 * </ul>
 * No log without a known topic id is ever served, so a stale log of a deleted and re-created topic cannot be.
 */
final class PartitionMetadataFile {

    static final String FILE_NAME = "partition.metadata";
    private static final int TOPIC_ID_BYTES = 16;

    private PartitionMetadataFile() {
    }

    static String encode(byte[] topicId) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(topicId);
    }

    /** Writes the file by a temp file and an atomic rename, without fsync; the log's first flush makes it durable. */
    static void writeUnsynced(Path dir, byte[] topicId) throws IOException {
        if (topicId.length != TOPIC_ID_BYTES) {
            throw new IllegalArgumentException("a topic id has " + TOPIC_ID_BYTES + " bytes, not " + topicId.length);
        }
        Path file = dir.resolve(FILE_NAME);
        Path tmp = dir.resolve(FILE_NAME + ".tmp");
        String text = "version: 0\ntopic_id: " + encode(topicId) + "\n";
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Fsyncs the file's content. The owning log then fsyncs the partition directory (the rename) and the log dir
     * holding it (the partition directory's creation, not fsynced before): see {@code Log.flushUpTo}.
     */
    static void syncContent(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir.resolve(FILE_NAME), StandardOpenOption.READ)) {
            ch.force(true);
        }
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
        byte[] id;
        try {
            id = Base64.getUrlDecoder().decode(lines.get(1).substring("topic_id: ".length()).trim());
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": bad topic id '" + lines.get(1) + "'");
        }
        if (id.length != TOPIC_ID_BYTES) {
            throw new IOException(file + ": bad topic id '" + lines.get(1) + "' (" + id.length + " bytes)");
        }
        return id;
    }
}
