package io.raftline.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Index entries go to the file through its channel (not stores into the mapping, which fault a block allocation
 * per page of the preallocated hole): lookups through the mapping see them at once, the bytes on disk are the
 * documented big-endian format, and a trimmed index reopens with the same entries.
 */
class MappedIndexTest {

    @TempDir
    Path tmp;

    @Test
    void offsetIndexEntriesAreWrittenToTheFileAndReadThroughTheMapping() throws Exception {
        Path file = tmp.resolve("00000000000000000100.index");
        OffsetIndex index = new OffsetIndex(file, 100, 4096);
        assertThat(index.wasCreated()).isTrue();
        assertThat(Files.size(file)).isEqualTo(4096);
        index.append(100, 0);
        index.append(110, 5000);
        index.append(125, 9000);

        assertThat(index.entries()).isEqualTo(3);
        assertThat(index.lookup(99)).isEqualTo(new OffsetIndex.Position(100, 0));
        assertThat(index.lookup(112)).isEqualTo(new OffsetIndex.Position(110, 5000));
        assertThat(index.lastEntry()).isEqualTo(new OffsetIndex.Position(125, 9000));

        index.flush();
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(file));
        assertThat(new int[] {raw.getInt(0), raw.getInt(4), raw.getInt(8), raw.getInt(12), raw.getInt(16), raw.getInt(20)})
            .containsExactly(0, 0, 10, 5000, 25, 9000);
        assertThat(raw.getInt(24)).isZero();

        index.close();
        assertThat(Files.size(file)).isEqualTo(3L * OffsetIndex.ENTRY_SIZE);
        OffsetIndex reopened = new OffsetIndex(file, 100, 4096);
        assertThat(reopened.wasCreated()).isFalse();
        assertThat(reopened.entries()).isEqualTo(3);
        assertThat(reopened.lookup(130)).isEqualTo(new OffsetIndex.Position(125, 9000));
        reopened.close();
    }

    @Test
    void timeIndexEntriesAreWrittenToTheFileAndReadThroughTheMapping() throws Exception {
        Path file = tmp.resolve("00000000000000000100.timeindex");
        TimeIndex index = new TimeIndex(file, 100, 4096);
        index.maybeAppend(1_000, 104);
        index.maybeAppend(999, 105);
        index.maybeAppend(2_000, 120);

        assertThat(index.entries()).isEqualTo(2);
        assertThat(index.lookup(1_500)).isEqualTo(new TimeIndex.Entry(1_000, 104));
        assertThat(index.lastEntry()).isEqualTo(new TimeIndex.Entry(2_000, 120));

        index.flush();
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(file));
        assertThat(raw.getLong(0)).isEqualTo(1_000);
        assertThat(raw.getInt(8)).isEqualTo(4);
        assertThat(raw.getLong(12)).isEqualTo(2_000);
        assertThat(raw.getInt(20)).isEqualTo(20);

        index.close();
        TimeIndex reopened = new TimeIndex(file, 100, 4096);
        assertThat(reopened.entries()).isEqualTo(2);
        assertThat(reopened.lastEntry()).isEqualTo(new TimeIndex.Entry(2_000, 120));
        reopened.close();
    }

    @Test
    void aTruncatedIndexOverwritesItsDroppedEntries() throws Exception {
        OffsetIndex index = new OffsetIndex(tmp.resolve("00000000000000000000.index"), 0, 4096);
        index.append(0, 0);
        index.append(10, 100);
        index.append(20, 200);
        index.truncateToOffset(10);
        assertThat(index.entries()).isEqualTo(1);
        index.append(12, 150);
        assertThat(index.lastEntry()).isEqualTo(new OffsetIndex.Position(12, 150));
        assertThat(index.lookup(25)).isEqualTo(new OffsetIndex.Position(12, 150));
        index.close();
    }

    /**
     * Indexes written while the descriptor budget is spent open their file per entry and close it again: at 10,000
     * partitions written at once a node ran out of descriptors (three a partition) and its log dir went offline.
     */
    @Test
    void indexesKeepTheirDescriptorsOnlyWithinTheBudget() throws Exception {
        IndexDescriptors budget = new IndexDescriptors(4);
        List<OffsetIndex> indexes = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            indexes.add(new OffsetIndex(tmp.resolve(i + ".index"), 100, 4096, budget));
        }
        assertThat(openIndexFiles()).isZero();
        for (int round = 0; round < 3; round++) {
            for (OffsetIndex index : indexes) {
                index.append(100 + round * 10, round * 1000);
            }
            assertThat(openIndexFiles()).as("round %d", round).isEqualTo(4);
            assertThat(budget.held()).isEqualTo(4);
        }
        for (OffsetIndex index : indexes) {
            assertThat(index.entries()).isEqualTo(3);
            assertThat(index.lookup(115)).isEqualTo(new OffsetIndex.Position(110, 1000));
            assertThat(index.lastEntry()).isEqualTo(new OffsetIndex.Position(120, 2000));
        }
        for (OffsetIndex index : indexes) {
            index.close();
        }
        assertThat(openIndexFiles()).isZero();
        assertThat(budget.held()).as("every descriptor given back").isZero();
        OffsetIndex reopened = new OffsetIndex(tmp.resolve("9.index"), 100, 4096, budget);
        assertThat(reopened.entries()).as("an index written without a kept descriptor").isEqualTo(3);
        assertThat(reopened.lookup(125)).isEqualTo(new OffsetIndex.Position(120, 2000));
        reopened.close();
    }

    @Test
    void theProcessBudgetIsATenthOfTheDescriptorLimitWithinBounds() {
        assertThat(IndexDescriptors.forLimit(1024)).isEqualTo(102);
        assertThat(IndexDescriptors.forLimit(20_000)).isEqualTo(2000);
        assertThat(IndexDescriptors.forLimit(1_048_576)).isEqualTo(2048);
        assertThat(IndexDescriptors.forLimit(50)).isEqualTo(16);
    }

    /** Descriptors this process holds on files in {@code tmp} (Linux: /proc/self/fd). */
    private long openIndexFiles() throws IOException {
        long n = 0;
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    n += tmp.equals(Files.readSymbolicLink(fd).getParent()) ? 1 : 0;
                } catch (IOException gone) {
                    // closed between the listing and the read (another thread's descriptor)
                }
            }
        }
        return n;
    }
}
