package io.raftline.bench;

import com.google.protobuf.UnsafeByteOperations;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.raftline.broker.log.FetchDataInfo;
import io.raftline.broker.log.Log;
import io.raftline.broker.log.LogConfig;
import io.raftline.broker.rpc.StoredBytes;
import io.raftline.grpc.AliasingMarshaller;
import io.raftline.protocol.broker.FetchResponse;
import io.raftline.record.CompressionType;
import io.raftline.record.Record;
import io.raftline.record.RecordBatch;
import io.raftline.record.Records;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The consumer fetch path, one piece at a time, for a fetch answer of {@code fetchBytes} of 64 KiB batches of 1 KiB
 * records (ops/s x fetchBytes = bytes/s):
 * <ul>
 *   <li>{@code serveHeapCopy} / {@code servePooledDirect}: the broker's side, from the log read to the gRPC bytes
 *   (the response serialized as gRPC does, into a reused output stream): a fresh heap buffer per answer (before)
 *   against the pooled direct buffers of {@link StoredBytes} (after);</li>
 *   <li>{@code parseDefault} / {@code parseAliasing}: the client's parse of the answer, gRPC's protobuf marshaller
 *   (copies the records) against {@link AliasingMarshaller} (aliases them);</li>
 *   <li>{@code decodeRecords}: CRC check and record decoding of the answer, value bytes copied as the consumer does.</li>
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class FetchPathBenchmark {

    private static final MethodDescriptor.Marshaller<FetchResponse> DEFAULT = ProtoUtils.marshaller(FetchResponse.getDefaultInstance());
    private static final MethodDescriptor.Marshaller<FetchResponse> ALIASING = new AliasingMarshaller<>(FetchResponse.getDefaultInstance());

    @Param({"1048576", "6291456"})
    public int fetchBytes;

    private Path root;
    private ScheduledExecutorService scheduler;
    private Log log;
    private FetchDataInfo slice;
    private final StoredBytes pool = new StoredBytes();
    private final ByteArrayOutputStream wire = new ByteArrayOutputStream(8 << 20);
    private byte[] serialized;
    private ByteBuffer records;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        root = BenchLogs.baseDir().resolve("fetch-path");
        scheduler = Executors.newSingleThreadScheduledExecutor();
        log = BenchLogs.open(root, scheduler, Map.of(LogConfig.SEGMENT_BYTES, Integer.toString(64 << 20)));
        ByteBuffer batch = BenchLogs.batch(65536, CompressionType.NONE, 11);
        while (log.size() < 2L * fetchBytes) {
            log.appendAsLeader(batch.duplicate(), 1);
        }
        slice = log.read(0, fetchBytes, Long.MAX_VALUE, true);
        records = slice.readIntoBuffer();
        serialized = response(UnsafeByteOperations.unsafeWrap(records.duplicate())).toByteArray();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        log.close();
        scheduler.shutdownNow();
        BenchLogs.deleteTree(root);
    }

    private static FetchResponse response(com.google.protobuf.ByteString data) {
        return FetchResponse.newBuilder().setCorrelationId(7).addPartitions(FetchResponse.PartitionData.newBuilder()
            .setTopic("bench").setPartition(0).setHighWatermark(1_000_000).setRecords(data)).build();
    }

    private int send(FetchResponse response) throws IOException {
        wire.reset();
        try (InputStream in = DEFAULT.stream(response)) {
            in.transferTo(wire);
        }
        return wire.size();
    }

    @Benchmark
    public int serveHeapCopy() throws IOException {
        return send(response(UnsafeByteOperations.unsafeWrap(slice.readIntoBuffer())));
    }

    @Benchmark
    public int servePooledDirect() throws IOException {
        try (StoredBytes.Lease lease = pool.lease(slice.sizeInBytes())) {
            return send(response(lease.wrap(slice)));
        }
    }

    @Benchmark
    public FetchResponse parseDefault() {
        return DEFAULT.parse(new ByteArrayInputStream(serialized));
    }

    @Benchmark
    public FetchResponse parseAliasing() {
        return ALIASING.parse(new ByteArrayInputStream(serialized));
    }

    @Benchmark
    public void decodeRecords(Blackhole bh) {
        for (RecordBatch batch : Records.batches(records.duplicate())) {
            if (!batch.isValid()) {
                throw new IllegalStateException("corrupt batch in the benchmark log");
            }
            for (Record r : batch.records()) {
                bh.consume(r.valueBytes());
            }
        }
    }
}
