package io.raftline.common.io;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * fsync of a file's content and of a directory's entries. A file created, renamed into place or deleted is durable
 * only once its directory is fsynced too: every replace-by-rename of a file that must survive a power loss goes
 * through {@link #replace}, which ends with {@link #directory} of its parent.
 */
public final class Fsync {

    private Fsync() {
    }

    /** What {@link #replace} writes into the new file. */
    @FunctionalInterface
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
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

    /**
     * Replaces {@code target} durably: {@code content} goes into a temp file beside it ({@code <name>.tmp}), which is
     * fsynced, renamed over the target atomically, and then the directory is fsynced. After a crash or a power loss
     * the target holds the old content or the new one, never a mix, and the new one once this returns.
     */
    public static void replace(Path target, Content content) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
            OutputStream out = Channels.newOutputStream(ch);
            content.writeTo(out);
            out.flush();
            ch.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        directory(target.toAbsolutePath().getParent());
    }
}
