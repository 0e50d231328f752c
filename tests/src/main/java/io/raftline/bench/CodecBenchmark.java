package io.raftline.bench;

import io.raftline.record.BatchValidator;
import io.raftline.record.CompressionType;
import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.RecordBatchBuilder;
import io.raftline.record.TimestampType;
import io.raftline.record.ValidationResult;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/** Per codec: building a 16 KiB batch of 1 KiB records (producer), validating it (broker), decoding it (consumer). */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CodecBenchmark {

    @Param({"NONE", "GZIP", "SNAPPY", "LZ4", "ZSTD"})
    public CompressionType codec;

    private byte[][] values;
    private ByteBuffer built;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(3);
        values = new byte[15][];
        for (int i = 0; i < values.length; i++) {
            values[i] = new byte[BenchLogs.RECORD_BYTES];
            for (int j = 0; j < BenchLogs.RECORD_BYTES / 2; j++) {
                values[i][j] = (byte) random.nextInt(256);
            }
        }
        built = build();
        System.out.println("\n" + codec + ": 15 x 1 KiB records -> " + built.limit() + " bytes");
    }

    @Benchmark
    public ByteBuffer build() {
        RecordBatchBuilder b = new RecordBatchBuilder(codec, TimestampType.CREATE_TIME, 0, -1, (short) -1, -1, 17 * 1024);
        for (int i = 0; i < values.length; i++) {
            b.append(1_700_000_000_000L + i, null, values[i], null);
        }
        return b.build();
    }

    @Benchmark
    public ValidationResult validate() {
        return BatchValidator.validate(built.duplicate(), 1 << 20);
    }

    @Benchmark
    public void decode(Blackhole bh) {
        for (Record r : RecordBatch.view(built, 0).records()) {
            bh.consume(r.value());
        }
    }
}
