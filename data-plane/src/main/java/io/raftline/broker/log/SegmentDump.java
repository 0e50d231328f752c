package io.raftline.broker.log;

import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.RecordFormatException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code raftline storage dump-log} prints, as kafka-dump-log does: each batch of a segment file with its
 * position, offsets, epoch, producer, timestamps and whether its CRC holds; optionally its records; and, for a
 * segment, whether its offset index agrees with it (every entry at a batch start with that batch's base offset,
 * offsets and positions rising). It reads only: the files are never changed. A problem is reported and counted,
 * never thrown, so one bad batch does not hide the rest of the report.
 */
public final class SegmentDump {

    /** What a dump found wrong, by kind (corrupt batch, truncated tail, index entry that disagrees). */
    public record Result(int batches, long records, List<String> problems) {
    }

    private SegmentDump() {
    }

    /** Dumps {@code file} (a {@code .log} segment, or a {@code .index} with its segment beside it). */
    public static Result dump(Path file, boolean printRecords, PrintWriter out) throws IOException {
        String name = file.getFileName().toString();
        if (name.endsWith(".index")) {
            Path log = file.resolveSibling(name.substring(0, name.length() - ".index".length()) + ".log");
            out.println("Dumping " + file);
            return checkIndex(read(file), read(log), baseOffset(file), out);
        }
        out.println("Dumping " + file);
        Result batches = dumpBatches(read(file), printRecords, out);
        Path index = file.resolveSibling(name.replaceFirst("\\.log$", ".index"));
        if (name.endsWith(".log") && Files.exists(index)) {
            out.println("Checking " + index);
            Result indexed = checkIndex(read(index), read(file), baseOffset(file), out);
            List<String> all = new ArrayList<>(batches.problems());
            all.addAll(indexed.problems());
            return new Result(batches.batches(), batches.records(), all);
        }
        return batches;
    }

    /** The batches of a segment's bytes, from position 0. */
    public static Result dumpBatches(ByteBuffer log, boolean printRecords, PrintWriter out) {
        List<String> problems = new ArrayList<>();
        int position = 0;
        int batches = 0;
        long records = 0;
        while (position < log.limit()) {
            if (log.limit() - position < RecordBatch.HEADER_SIZE) {
                problems.add(report(out, "truncated: " + (log.limit() - position) + " bytes at position " + position
                    + " are less than a batch header"));
                break;
            }
            RecordBatch batch = RecordBatch.view(log, position);
            int size = batch.sizeInBytes();
            if (batch.batchLength() < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD || size > log.limit() - position) {
                problems.add(report(out, "corrupt: the batch at position " + position + " claims " + size
                    + " bytes, " + (log.limit() - position) + " remain; the rest of the file is not read"));
                break;
            }
            boolean valid = batch.isValid();
            out.println("baseOffset: " + batch.baseOffset() + " lastOffset: " + batch.lastOffset() + " count: "
                + batch.recordCount() + " position: " + position + " size: " + size + " epoch: "
                + batch.partitionLeaderEpoch() + " producerId: " + batch.producerId() + " producerEpoch: "
                + batch.producerEpoch() + " baseSequence: " + batch.baseSequence() + " compression: "
                + batch.compressionType() + " timestampType: " + batch.timestampType() + " maxTimestamp: "
                + batch.maxTimestamp() + " crc: " + Long.toHexString(batch.checksum()) + " isValid: " + valid);
            if (!valid) {
                problems.add("corrupt: CRC of the batch at offset " + batch.baseOffset() + " (position " + position
                    + ") does not match");
            } else if (printRecords) {
                try {
                    for (Record r : batch.records()) {
                        out.println("| offset: " + r.offset() + " timestamp: " + r.timestamp() + " key: "
                            + text(r.hasKey() ? r.keyBytes() : null) + " value: " + text(r.hasValue() ? r.valueBytes() : null)
                            + " headers: " + r.headers().length);
                    }
                } catch (RecordFormatException e) {
                    problems.add(report(out, "corrupt: records of the batch at offset " + batch.baseOffset() + ": "
                        + e.getMessage()));
                }
            }
            batches++;
            records += batch.recordCount();
            position += size;
        }
        return new Result(batches, records, problems);
    }

    /**
     * Checks an offset index against its segment: each entry must name a batch start whose base offset is the entry's
     * offset, with offsets and positions rising. A run of zero entries at the end is the preallocated space of an
     * active (or not yet trimmed) index, not a problem.
     */
    public static Result checkIndex(ByteBuffer index, ByteBuffer log, long baseOffset, PrintWriter out) {
        Map<Integer, Long> batchStarts = new HashMap<>();
        int position = 0;
        while (log.limit() - position >= RecordBatch.HEADER_SIZE) {
            RecordBatch batch = RecordBatch.view(log, position);
            int size = batch.sizeInBytes();
            if (batch.batchLength() < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD || size > log.limit() - position) {
                break;
            }
            batchStarts.put(position, batch.baseOffset());
            position += size;
        }
        List<String> problems = new ArrayList<>();
        int entries = index.limit() / OffsetIndex.ENTRY_SIZE;
        long lastOffset = -1;
        int lastPosition = -1;
        int used = 0;
        for (int i = 0; i < entries; i++) {
            int relative = index.getInt(i * OffsetIndex.ENTRY_SIZE);
            int pos = index.getInt(i * OffsetIndex.ENTRY_SIZE + 4);
            if (i > 0 && relative == 0 && pos == 0) {
                out.println("index: " + (entries - i) + " preallocated empty entries after entry " + (i - 1));
                break;
            }
            long offset = baseOffset + relative;
            out.println("index offset: " + offset + " position: " + pos);
            used++;
            Long atPosition = batchStarts.get(pos);
            if (atPosition == null) {
                problems.add(report(out, "index entry " + i + " (offset " + offset + ") points at position " + pos
                    + ", which is not the start of a batch"));
            } else if (atPosition != offset) {
                problems.add(report(out, "index entry " + i + " says offset " + offset + " is at position " + pos
                    + ", where the batch with base offset " + atPosition + " starts"));
            }
            if (offset <= lastOffset || pos <= lastPosition) {
                problems.add(report(out, "index entry " + i + " (offset " + offset + ", position " + pos
                    + ") does not rise above the entry before it"));
            }
            lastOffset = offset;
            lastPosition = pos;
        }
        return new Result(used, 0, problems);
    }

    private static String report(PrintWriter out, String problem) {
        out.println(problem);
        return problem;
    }

    private static String text(byte[] bytes) {
        return bytes == null ? "null" : new String(bytes, StandardCharsets.UTF_8);
    }

    private static long baseOffset(Path file) {
        String name = file.getFileName().toString();
        try {
            return Long.parseLong(name.substring(0, name.indexOf('.')));
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new IllegalArgumentException(file + " is not named <base offset>.log or <base offset>.index");
        }
    }

    private static ByteBuffer read(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
        }
    }
}
