package io.raftline.broker.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.client.admin.BrokerDescription;
import io.raftline.client.admin.ClusterOverview;
import io.raftline.client.admin.ClusterOverview.PartitionView;
import io.raftline.client.admin.ClusterOverview.TopicView;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The documents the page reads in pages, cut from one {@link ClusterOverview}, so that what a refresh sends grows
 * with one page of rows and not with every partition of the cluster: the cluster summary (counts, no partitions),
 * a page of topics (one summary row each), and a topic with a page of its partitions. Pure.
 */
final class ConsoleViews {

    private final ObjectMapper json;

    ConsoleViews(ObjectMapper json) {
        this.json = json;
    }

    /**
     * The overview without its topics: brokers (each with the partitions it leads and holds), quorum, groups, the
     * topic and partition counts, the under-replicated and offline counts, and the topic names (for the forms).
     */
    ObjectNode summary(ClusterOverview o) {
        ObjectNode doc = json.valueToTree(o);
        doc.remove("topics");
        Map<Integer, Integer> leaders = new HashMap<>();
        Map<Integer, Integer> replicas = new HashMap<>();
        long partitions = 0;
        long under = 0;
        long offline = 0;
        ArrayNode names = json.createArrayNode();
        for (TopicView t : o.topics()) {
            names.add(t.topic());
            for (PartitionView p : t.partitions()) {
                partitions++;
                under += p.underReplicated() ? 1 : 0;
                offline += p.offline() ? 1 : 0;
                if (p.leader() >= 0) {
                    leaders.merge(p.leader(), 1, Integer::sum);
                }
                p.replicas().forEach(r -> replicas.merge(r, 1, Integer::sum));
            }
        }
        ArrayNode brokers = doc.putArray("brokers");
        for (BrokerDescription b : o.brokers()) {
            ObjectNode row = json.valueToTree(b);
            row.put("leaders", leaders.getOrDefault(b.id(), 0)).put("replicas", replicas.getOrDefault(b.id(), 0));
            brokers.add(row);
        }
        doc.put("topicCount", o.topics().size()).put("partitionCount", partitions)
            .put("underReplicated", under).put("offline", offline);
        doc.set("topicNames", names);
        return doc;
    }

    /** Topics whose name contains {@code filter} (any case; null: all), one page of summary rows. */
    ObjectNode topics(ClusterOverview o, String filter, Long offset, Long limit) {
        String needle = filter == null ? null : filter.toLowerCase(Locale.ROOT);
        List<TopicView> matching = o.topics().stream()
            .filter(t -> needle == null || t.topic().toLowerCase(Locale.ROOT).contains(needle)).toList();
        ConsolePage page = ConsolePage.of(offset, limit, matching.size());
        ObjectNode doc = paged(page);
        if (filter != null) {
            doc.put("filter", filter);
        }
        ArrayNode rows = doc.putArray("topics");
        for (TopicView t : matching.subList(page.offset(), page.end())) {
            long size = t.partitions().stream().mapToLong(p -> p.sizeBytes() == null ? 0 : p.sizeBytes()).sum();
            rows.addObject().put("topic", t.topic()).put("topicId", t.topicId()).put("internal", t.internal())
                .put("partitions", t.partitions().size())
                .put("replicationFactor", t.partitions().isEmpty() ? 0 : t.partitions().get(0).replicas().size())
                .put("underReplicated", t.underReplicatedCount()).put("offline", t.offlineCount()).put("sizeBytes", size);
        }
        return doc;
    }

    /** The topic with one page of its partitions ({@code partitionCount}: all of them). */
    ObjectNode topic(TopicView t, Long offset, Long limit) {
        ConsolePage page = ConsolePage.of(offset, limit, t.partitions().size());
        ObjectNode doc = paged(page);
        doc.put("topic", t.topic()).put("topicId", t.topicId()).put("internal", t.internal())
            .put("partitionCount", t.partitions().size())
            .put("underReplicated", t.underReplicatedCount()).put("offline", t.offlineCount());
        doc.set("partitions", json.valueToTree(t.partitions().subList(page.offset(), page.end())));
        return doc;
    }

    private ObjectNode paged(ConsolePage page) {
        ObjectNode doc = json.createObjectNode().put("total", page.total()).put("offset", page.offset())
            .put("limit", page.limit());
        if (page.next() != null) {
            doc.put("next", page.next());
        } else {
            doc.putNull("next");
        }
        if (page.previous() != null) {
            doc.put("previous", page.previous());
        } else {
            doc.putNull("previous");
        }
        return doc;
    }
}
