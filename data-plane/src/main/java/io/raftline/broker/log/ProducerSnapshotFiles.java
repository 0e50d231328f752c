package io.raftline.broker.log;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * The producer-state snapshot files of a log directory: {@code <offset, 20 digits>.snapshot}, each holding the
 * idempotent-producer state of every batch below that offset (the bytes are the replica layer's; this class only
 * names, lists, writes and deletes them). Written through a {@code .tmp} file and a rename, so a reader sees a
 * whole file or none; the loader deletes a {@code .tmp} left by a crash. Not fsynced: a snapshot lost or torn by a
 * crash is detected by its checksum and the state is rebuilt from an older one or from the log.
 */
final class ProducerSnapshotFiles {

    static final String SUFFIX = ".snapshot";

    private ProducerSnapshotFiles() {
    }

    static Path file(Path dir, long offset) {
        return dir.resolve(LogSegment.fileName(offset, SUFFIX));
    }

    /** The offsets of the snapshots in {@code dir}, ascending. */
    static List<Long> offsets(Path dir) throws IOException {
        List<Long> out = new ArrayList<>();
        // a filter, not a glob: a glob compiles a regular expression per call, and this runs for every log opened
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, f -> f.getFileName().toString().endsWith(SUFFIX))) {
            for (Path f : files) {
                String n = f.getFileName().toString();
                String digits = n.substring(0, n.length() - SUFFIX.length());
                if (digits.length() == 20 && digits.chars().allMatch(Character::isDigit)) {
                    out.add(Long.parseLong(digits));
                }
            }
        }
        Collections.sort(out);
        return out;
    }

    static void write(Path dir, long offset, byte[] content) throws IOException {
        Path target = file(dir, offset);
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.write(tmp, content);
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static byte[] read(Path dir, long offset) throws IOException {
        return Files.readAllBytes(file(dir, offset));
    }

    /** Deletes the snapshots whose offset matches; returns how many. */
    static int deleteIf(Path dir, LongPredicate doomed) throws IOException {
        int n = 0;
        for (long offset : offsets(dir)) {
            if (doomed.test(offset)) {
                Files.deleteIfExists(file(dir, offset));
                n++;
            }
        }
        return n;
    }
}
