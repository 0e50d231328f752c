package io.raftline.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.stub.StreamObserver;
import io.raftline.broker.rpc.ServedImage;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.MetadataRequest;
import io.raftline.protocol.broker.MetadataResponse;
import io.raftline.protocol.broker.PartitionMetadata;
import io.raftline.protocol.broker.TopicMetadata;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.PartitionRecord;
import io.raftline.protocol.metadata.TopicRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeTopicPartitionsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/**
 * DescribeTopicPartitions' paging (KIP-966): topics sorted by name, at most the limit of partitions per page; and each
 * page asks the broker's Metadata for its own topics only.
 */
class KafkaPartitionApisTest {

    private static final List<String> NAMES = List.of("a", "b", "c");
    private static final List<Integer> COUNTS = List.of(3, 0, 4);

    private static String show(KafkaPartitionApis.Page page) {
        StringBuilder out = new StringBuilder();
        for (KafkaPartitionApis.Slice s : page.slices()) {
            out.append(NAMES.get(s.index())).append(s.first()).append('+').append(s.count()).append(' ');
        }
        return out.append("next=").append(page.next() == null ? "none" : page.next().topic() + page.next().partition())
            .toString();
    }

    @Test
    void everythingFitsInOnePage() {
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, null, 2000))).isEqualTo("a0+3 b0+0 c0+4 next=none");
    }

    @Test
    void pagesSplitInsideATopicAndResumeAtTheCursor() {
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, null, 2))).isEqualTo("a0+2 next=a2");
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, new KafkaPartitionApis.Cursor("a", 2), 2)))
            .isEqualTo("a2+1 b0+0 c0+1 next=c1");
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, new KafkaPartitionApis.Cursor("c", 1), 2)))
            .isEqualTo("c1+2 next=c3");
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, new KafkaPartitionApis.Cursor("c", 3), 2)))
            .isEqualTo("c3+1 next=none");
    }

    @Test
    void aFullPageEndingOnATopicsLastPartitionPointsAtTheNextTopic() {
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, null, 3))).isEqualTo("a0+3 next=b0");
        // a cursor past every topic, or a limit below one, still makes progress
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, new KafkaPartitionApis.Cursor("d", 0), 5))).isEqualTo("next=none");
        assertThat(show(KafkaPartitionApis.page(NAMES, COUNTS, null, 0))).isEqualTo("a0+1 next=a1");
    }

    // ---------------------------------------------------------------------------------------------------------
    // The whole request: a page asks the broker's Metadata only for its own topics

    private static MetadataImage image(Map<String, Integer> partitions) {
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        long index = 1;
        byte n = 0;
        for (Map.Entry<String, Integer> t : partitions.entrySet()) {
            byte[] id = new byte[16];
            id[15] = ++n;
            delta.replay(MetadataImage.wrap(MetadataRecord.newBuilder().setTopic(TopicRecord.newBuilder()
                .setName(t.getKey()).setTopicId(ByteString.copyFrom(id)))), index);
            for (int p = 0; p < t.getValue(); p++) {
                delta.replay(MetadataImage.wrap(MetadataRecord.newBuilder().setPartition(PartitionRecord.newBuilder()
                    .setTopicId(ByteString.copyFrom(id)).setPartition(p).addReplicas(1).addIsr(1).setLeader(1)
                    .setLeaderEpoch(1).setPartitionEpoch(1))), index);
            }
        }
        delta.apply(index);
        return delta.image();
    }

    /** The broker's Metadata over {@code image}, as its service answers, denying {@code denied}; records each ask. */
    private static final class RecordingMetadata implements BiConsumer<MetadataRequest, StreamObserver<MetadataResponse>> {
        final List<String> asks = new ArrayList<>();
        final MetadataImage image;
        final String denied;

        RecordingMetadata(MetadataImage image, String denied) {
            this.image = image;
            this.denied = denied;
        }

        @Override
        public void accept(MetadataRequest request, StreamObserver<MetadataResponse> answer) {
            boolean all = request.getAllTopics() || request.getTopicsCount() == 0;
            asks.add(all ? "*" : String.join(",", new TreeSet<>(request.getTopicsList())));
            MetadataResponse.Builder out = MetadataResponse.newBuilder();
            for (String name : all ? image.topicIdsByName().keySet() : request.getTopicsList()) {
                if (name.equals(denied)) {
                    if (!all) {
                        out.addTopics(TopicMetadata.newBuilder().setName(name).setError(Error.newBuilder()
                            .setCode(ErrorCode.TOPIC_AUTHORIZATION_FAILED)));
                    }
                    continue;
                }
                TopicMetadata.Builder t = TopicMetadata.newBuilder().setName(name);
                image.topic(name).ifPresentOrElse(ti -> ti.partitions().forEach((p, r) -> t.addPartitions(
                    PartitionMetadata.newBuilder().setPartition(p).setLeader(r.leader()).setLeaderEpoch(r.leaderEpoch())
                        .addAllReplicas(r.replicas()).addAllIsr(r.isr()))),
                    () -> t.setError(Error.newBuilder().setCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)));
                out.addTopics(t);
            }
            answer.onNext(out.build());
            answer.onCompleted();
        }
    }

    /** Every page of a description of {@code asked} (none: every topic), each as "topic:partitions[error]". */
    private static List<String> describeAll(KafkaPartitionApis apis, List<String> asked, int limit) {
        List<String> pages = new ArrayList<>();
        DescribeTopicPartitionsRequestData.Cursor cursor = null;
        do {
            DescribeTopicPartitionsRequestData data = new DescribeTopicPartitionsRequestData()
                .setResponsePartitionLimit(limit).setCursor(cursor);
            asked.forEach(t -> data.topics().add(new DescribeTopicPartitionsRequestData.TopicRequest().setName(t)));
            KafkaRequest request = new KafkaRequest(new RequestHeader(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, (short) 0, "c",
                1), new DescribeTopicPartitionsRequest.Builder(data).build((short) 0), 0, "127.0.0.1");
            DescribeTopicPartitionsResponseData out =
                (DescribeTopicPartitionsResponseData) apis.describeTopicPartitions(request).join();
            StringBuilder page = new StringBuilder();
            for (DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic t : out.topics()) {
                page.append(page.isEmpty() ? "" : " ").append(t.name()).append(':').append(t.partitions().stream()
                    .map(p -> String.valueOf(p.partitionIndex())).reduce((x, y) -> x + "," + y).orElse(""));
                if (t.errorCode() != 0) {
                    page.append('[').append(Errors.forCode(t.errorCode()).name()).append(']');
                }
            }
            pages.add(page.toString());
            cursor = out.nextCursor() == null ? null : new DescribeTopicPartitionsRequestData.Cursor()
                .setTopicName(out.nextCursor().topicName()).setPartitionIndex(out.nextCursor().partitionIndex());
        } while (cursor != null);
        return pages;
    }

    private static final Map<String, Integer> TOPICS = new TreeMap<>(Map.of("a", 3, "c", 4, "d", 2));

    @Test
    void aPageOfNamedTopicsAsksMetadataForItsTopicsAlone() {
        ServedImage served = new ServedImage();
        served.publish(image(TOPICS));
        RecordingMetadata metadata = new RecordingMetadata(served.current(), null);
        KafkaPartitionApis apis = new KafkaPartitionApis(null, served, metadata);
        assertThat(describeAll(apis, List.of("d", "b", "a", "c"), 2))
            .containsExactly("a:0,1", "a:2 b:[UNKNOWN_TOPIC_OR_PARTITION] c:0", "c:1,2", "c:3 d:0", "d:1");
        // before: every page asked for all four topics, so describing N topics cost N²
        assertThat(metadata.asks).containsExactly("a", "a,b,c", "c", "c,d", "d");
    }

    @Test
    void aPageOfEveryTopicAsksMetadataForItsTopicsAloneAndLeavesOutTheDeniedOnes() {
        ServedImage served = new ServedImage();
        served.publish(image(TOPICS));
        RecordingMetadata metadata = new RecordingMetadata(served.current(), "c");
        KafkaPartitionApis apis = new KafkaPartitionApis(null, served, metadata);
        // a listing holds only the topics the caller may describe (c's partitions take no room of a page)
        assertThat(String.join(" | ", describeAll(apis, List.of(), 2))).doesNotContain("c:");
        assertThat(metadata.asks).doesNotContain("*").allMatch(a -> a.split(",").length <= 2);
        // asked by name, a denied topic is answered with its error
        assertThat(describeAll(apis, List.of("c"), 2)).containsExactly("c:[TOPIC_AUTHORIZATION_FAILED]");
    }
}
