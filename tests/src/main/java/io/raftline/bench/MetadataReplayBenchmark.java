package io.raftline.bench;

import com.google.protobuf.ByteString;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.PartitionRecord;
import io.raftline.protocol.metadata.TopicRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Replaying one Raft entry that creates topics (a topic record and its partition records) onto an image: what every
 * voter and broker does for each create. Linear in what the entry holds is the aim: one topic of N partitions, and N
 * topics of one partition each. And one small topic (3 partitions) created on an image already holding N topics: what
 * each create costs as a cluster grows, which should not depend on N.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class MetadataReplayBenchmark {

    @Param({"2000", "8000", "32000"})
    public int n;

    private List<MetadataRecord> oneTopic;
    private List<MetadataRecord> manyTopics;
    private MetadataImage nTopics;
    private List<MetadataRecord> smallTopic;

    @Setup
    public void records() {
        oneTopic = new ArrayList<>();
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        Uuid id = Uuid.random(random);
        oneTopic.add(topic("big", id));
        for (int p = 0; p < n; p++) {
            oneTopic.add(partition(id, p));
        }
        manyTopics = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            Uuid tid = Uuid.random(random);
            manyTopics.add(topic("t" + t, tid));
            manyTopics.add(partition(tid, 0));
        }
        nTopics = MetadataDelta.replayAll(MetadataImage.EMPTY, 1, manyTopics).image();
        Uuid small = Uuid.random(random);
        smallTopic = List.of(topic("small", small), partition(small, 0), partition(small, 1), partition(small, 2));
    }

    static MetadataRecord topic(String name, Uuid id) {
        return MetadataRecord.newBuilder().setVersion(1).setTopic(TopicRecord.newBuilder().setName(name)
            .setTopicId(ByteString.copyFrom(id.bytes()))).build();
    }

    static MetadataRecord partition(Uuid id, int p) {
        return MetadataRecord.newBuilder().setVersion(1).setPartition(PartitionRecord.newBuilder()
            .setTopicId(ByteString.copyFrom(id.bytes())).setPartition(p).addReplicas(1).addReplicas(2).addReplicas(3)
            .addIsr(1).addIsr(2).addIsr(3).setLeader(1)).build();
    }

    @Benchmark
    public MetadataImage oneTopicOfNPartitions() {
        return MetadataDelta.replayAll(MetadataImage.EMPTY, 1, oneTopic).image();
    }

    @Benchmark
    public MetadataImage smallTopicOntoAnImageOfNTopics() {
        return MetadataDelta.replayAll(nTopics, 2, smallTopic).image();
    }

    @Benchmark
    public MetadataImage nTopicsOfOnePartition() {
        return MetadataDelta.replayAll(MetadataImage.EMPTY, 1, manyTopics).image();
    }
}
