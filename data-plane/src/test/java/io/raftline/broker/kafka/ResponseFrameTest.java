package io.raftline.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCounted;
import io.raftline.broker.log.FetchDataInfo;
import io.raftline.broker.log.FileSlice;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fetch answer whose records are ranges of a real file, encoded for a plaintext connection (the records as file
 * regions, sent with transferTo) and for a TLS one (read into the buffer): both give exactly the bytes Kafka's own
 * serializer gives for the same answer with the records in memory, and every part is released once written.
 */
class ResponseFrameTest {

    @TempDir
    Path tmp;

    @Test
    void storedRecordsGoOutAsFileRegionsOrReadIntoTheBufferWithTheBytesKafkaWouldWrite() throws IOException {
        MemoryRecords first = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(1L, "k1".getBytes(), "v1".getBytes()),
            new SimpleRecord(2L, "k2".getBytes(), "v2".getBytes()));
        MemoryRecords second = MemoryRecords.withRecords(2L, Compression.NONE, new SimpleRecord(3L, null, new byte[5000]));
        Path file = tmp.resolve("segment.log");
        int junk = 37;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(junk));
            ch.write(first.buffer().duplicate());
            ch.write(ByteBuffer.allocate(11));
            ch.write(second.buffer().duplicate());
        }
        byte[] stored = concat(first, second);
        short version = 12;
        short headerVersion = ApiKeys.FETCH.responseHeaderVersion(version);
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(42);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            FetchDataInfo data = new FetchDataInfo(0, List.of(new FileSlice(ch, junk, first.sizeInBytes(), 2),
                new FileSlice(ch, junk + first.sizeInBytes() + 11, second.sizeInBytes(), 1)));
            StoredRecords records = new StoredRecords(data);
            assertThat(records.recordCount()).isEqualTo(3);
            byte[] expected = frame(RequestUtils.serialize(header, headerVersion,
                answer(MemoryRecords.readableRecords(ByteBuffer.wrap(stored))), version));

            List<Object> plain = ResponseFrame.encode(PooledByteBufAllocator.DEFAULT, header, headerVersion, answer(records),
                version, true);
            assertThat(plain).filteredOn(p -> p instanceof FileRegion).hasSize(2);
            long buffered = plain.stream().filter(p -> p instanceof ByteBuf).mapToLong(p -> ((ByteBuf) p).readableBytes()).sum();
            assertThat(buffered).as("no record byte in memory").isEqualTo(expected.length - stored.length);
            assertThat(drain(plain)).isEqualTo(expected);

            List<Object> tls = ResponseFrame.encode(PooledByteBufAllocator.DEFAULT, header, headerVersion, answer(records),
                version, false);
            assertThat(tls).allMatch(p -> p instanceof ByteBuf);
            assertThat(drain(tls)).isEqualTo(expected);
            assertThat(ch.isOpen()).as("the segment's channel is the log's to close").isTrue();
        }
    }

    @Test
    void answersWithoutRecordsAreOneBuffer() throws IOException {
        short version = 12;
        short headerVersion = ApiKeys.FETCH.responseHeaderVersion(version);
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(7);
        FetchResponseData empty = answer(MemoryRecords.EMPTY);
        List<Object> parts = ResponseFrame.encode(PooledByteBufAllocator.DEFAULT, header, headerVersion, empty, version, true);
        assertThat(parts).hasSize(1);
        assertThat(drain(parts)).isEqualTo(frame(RequestUtils.serialize(header, headerVersion, empty, version)));
    }

    private static FetchResponseData answer(org.apache.kafka.common.record.internal.BaseRecords records) {
        FetchResponseData out = new FetchResponseData().setSessionId(0).setErrorCode(Errors.NONE.code());
        FetchResponseData.FetchableTopicResponse topic = new FetchResponseData.FetchableTopicResponse().setTopic("t");
        topic.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(0).setHighWatermark(3)
            .setLastStableOffset(3).setLogStartOffset(0).setAbortedTransactions(null).setRecords(records));
        topic.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(1)
            .setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).setAbortedTransactions(null).setRecords(MemoryRecords.EMPTY));
        out.responses().add(topic);
        return out;
    }

    /** Writes every part as the socket would and releases it; each must be freed by that one release. */
    private static byte[] drain(List<Object> parts) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WritableByteChannel target = Channels.newChannel(out);
        for (Object part : parts) {
            if (part instanceof ByteBuf buf) {
                buf.readBytes(out, buf.readableBytes());
            } else {
                FileRegion region = (FileRegion) part;
                while (region.transferred() < region.count()) {
                    region.transferTo(target, region.transferred());
                }
            }
            assertThat(((ReferenceCounted) part).release()).as("released by its writer").isTrue();
        }
        return out.toByteArray();
    }

    private static byte[] frame(ByteBuffer serialized) {
        ByteBuffer out = ByteBuffer.allocate(4 + serialized.remaining());
        out.putInt(serialized.remaining()).put(serialized);
        return out.array();
    }

    private static byte[] concat(MemoryRecords a, MemoryRecords b) {
        byte[] out = Arrays.copyOf(bytes(a), a.sizeInBytes() + b.sizeInBytes());
        System.arraycopy(bytes(b), 0, out, a.sizeInBytes(), b.sizeInBytes());
        return out;
    }

    private static byte[] bytes(MemoryRecords r) {
        ByteBuffer b = r.buffer().duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
