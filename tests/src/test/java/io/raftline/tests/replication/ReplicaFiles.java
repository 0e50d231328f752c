package io.raftline.tests.replication;

import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import io.raftline.tests.cluster.TestNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads a replica straight from a node's log directory, bypassing the broker, so a test can compare what every
 * replica holds (a consumer only ever sees the leader). Reads whole, CRC-valid batches only: a segment being
 * appended to while it is read yields its complete prefix.
 */
final class ReplicaFiles {

    private ReplicaFiles() {
    }

    static Path dataDir(TestNode node) {
        return node.dir().resolve("data");
    }

    /** The partition directories ({@code <topic>-<n>}, not the ones renamed for deletion) of {@code topic} on the node. */
    static List<Path> partitionDirs(TestNode node, String topic) {
        try (Stream<Path> children = Files.list(dataDir(node))) {
            return children.filter(Files::isDirectory)
                .filter(p -> p.getFileName().toString().matches(Pattern.quote(topic) + "-\\d+"))
                .sorted().toList();
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Offset to value (UTF-8) of every record in the replica of {@code topic}-{@code partition} on the node; empty if absent. */
    static SortedMap<Long, String> records(TestNode node, String topic, int partition) {
        Path dir = dataDir(node).resolve(topic + "-" + partition);
        SortedMap<Long, String> out = new TreeMap<>();
        List<Path> segments = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().forEach(segments::add);
        } catch (NoSuchFileException e) {
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Path segment : segments) {
            ByteBuffer buf;
            try {
                buf = ByteBuffer.wrap(Files.readAllBytes(segment));
            } catch (NoSuchFileException e) {
                continue;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            buf.limit(Records.validBytes(buf));
            for (RecordBatch batch : Records.batches(buf)) {
                for (Record r : batch.records()) {
                    out.put(r.offset(), r.hasValue() ? new String(r.valueBytes(), StandardCharsets.UTF_8) : null);
                }
            }
        }
        return out;
    }
}
