package io.raftline.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.broker.ServerMainAccess;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** dump-log on a segment a real Log wrote: a clean one has no problem; a flipped byte and a wrong index entry are found. */
class SegmentDumpTest {

    @TempDir
    Path tmp;

    private Path segment() throws Exception {
        // a small index interval, so the index has several entries
        try (LogFixture f = new LogFixture(tmp, Map.of(LogConfig.INDEX_INTERVAL_BYTES, "1"))) {
            for (int i = 0; i < 5; i++) {
                f.log.appendAsLeader(TestBatches.batch(3, "b" + i, 1_000 + i), 7);
            }
            f.restartClean();
        }
        return tmp.resolve("t-0").resolve("00000000000000000000.log");
    }

    private static String run(String... args) {
        StringWriter out = new StringWriter();
        int code = ServerMainAccess.run(args, new PrintWriter(out, true), new PrintWriter(out, true));
        return code + "\n" + out;
    }

    @Test
    void aCleanSegmentAndItsIndexPrintWithoutProblems() throws Exception {
        Path log = segment();
        String out = run("storage", "dump-log", "--files", log.toString(), "--print-data-log");
        assertThat(out).startsWith("0\n").contains("baseOffset: 0 lastOffset: 2 count: 3 position: 0")
            .contains("baseOffset: 12 lastOffset: 14 count: 3").contains("epoch: 7").contains("isValid: true")
            .contains("| offset: 13 ").contains("index offset: 12 position: ").contains("No problems found")
            .doesNotContain("isValid: false");
        assertThat(out.lines().filter(l -> l.startsWith("baseOffset: ")).count()).isEqualTo(5);
        assertThat(out.lines().filter(l -> l.startsWith("| offset: ")).count()).isEqualTo(15);
    }

    @Test
    void aFlippedByteIsACrcProblemAndTheRestIsStillRead() throws Exception {
        Path log = segment();
        int secondBatch;
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer first = ByteBuffer.allocate(12);
            ch.read(first, 0);
            secondBatch = 12 + first.getInt(8);
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, secondBatch + 70);
            b.put(0, (byte) (b.get(0) ^ 0x5a)).rewind();
            ch.write(b, secondBatch + 70);
        }
        String out = run("storage", "dump-log", "--files", log.toString());
        assertThat(out).startsWith("1\n").contains("baseOffset: 3 lastOffset: 5 count: 3 position: " + secondBatch)
            .contains("isValid: false").contains("1 problem(s) found");
        assertThat(out.lines().filter(l -> l.startsWith("baseOffset: ")).count()).isEqualTo(5);
    }

    @Test
    void anIndexEntryThatDisagreesWithTheSegmentIsFound() throws Exception {
        Path log = segment();
        Path index = log.resolveSibling("00000000000000000000.index");
        byte[] entries = Files.readAllBytes(index);
        assertThat(entries.length).isGreaterThanOrEqualTo(16);
        ByteBuffer.wrap(entries).putInt(OffsetIndex.ENTRY_SIZE + 4, 5); // the second entry's position: not a batch start
        Files.write(index, entries);
        StringWriter sink = new StringWriter();
        SegmentDump.Result r = SegmentDump.dump(index, false, new PrintWriter(sink, true));
        assertThat(r.problems()).hasSize(2).anySatisfy(p -> assertThat(p).contains("points at position 5, which is not the start"))
            .anySatisfy(p -> assertThat(p).contains("does not rise"));
    }

    @Test
    void aTruncatedTailIsReportedNotThrown() throws Exception {
        Path log = segment();
        byte[] bytes = Files.readAllBytes(log);
        Files.write(log, java.util.Arrays.copyOf(bytes, bytes.length - 10));
        String out = run("storage", "dump-log", "--files", log.toString());
        assertThat(out).startsWith("1\n").contains("the rest of the file is not read");
        assertThat(run("storage", "dump-log", "--files", tmp.resolve("nope.log").toString()))
            .startsWith("1\n").contains("error: no such file: ");
        assertThat(List.of(out.split("\n"))).filteredOn(l -> l.startsWith("baseOffset: ")).hasSize(4);
    }
}
