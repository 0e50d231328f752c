package io.raftline.common.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * fsync of a file's content and of a directory's entries. A file created, renamed into place or deleted is durable
 * only once its directory is fsynced too: every replace-by-rename of a file that must survive a power loss ends
 * with {@link #directory} of its parent.
 */
public final class Fsync {

    private Fsync() {
    }

    /** fsyncs {@code file}'s content and metadata. */
    public static void file(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** fsyncs {@code dir}'s entries (files created, renamed or deleted in it). */
    public static void directory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
