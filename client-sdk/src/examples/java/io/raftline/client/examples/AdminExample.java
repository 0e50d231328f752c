package io.raftline.client.examples;

import io.raftline.client.admin.Admin;
import io.raftline.client.admin.AdminClientConfig;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.admin.ReplicaLogInfo;
import io.raftline.client.admin.TopicDescription;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.errors.TopicExistsException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

/**
 * Creates a topic (if missing), then prints the cluster, the topic's partitions with their leader offsets, and the
 * metadata quorum. Run: {@code AdminExample [bootstrap] [topic] [partitions] [replication-factor]}.
 */
public final class AdminExample {

    private AdminExample() {
    }

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        String bootstrap = args.length > 0 ? args[0] : "127.0.0.1:9092";
        String topic = args.length > 1 ? args[1] : "orders";
        int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        short rf = args.length > 3 ? Short.parseShort(args[3]) : 1;

        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, partitions, rf))).all().get();
                System.out.println("created " + topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
                System.out.println(topic + " exists already");
            }
            System.out.println("cluster " + admin.describeCluster().clusterId().get() + ", brokers "
                + admin.describeCluster().nodes().get());
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            Map<TopicPartition, ReplicaLogInfo> logs = admin.describeLogs(null, Duration.ofSeconds(2)).leaderLogs().get();
            for (TopicPartitionInfo p : d.partitions()) {
                ReplicaLogInfo log = logs.get(new TopicPartition(topic, p.partition()));
                System.out.println(topic + "-" + p.partition() + " leader " + (p.leader() == null ? -1 : p.leader().id())
                    + " isr " + p.isr().stream().map(n -> n.id()).toList()
                    + (log == null ? " offsets unknown" : " start " + log.logStartOffset() + " end " + log.logEndOffset()
                        + " hw " + log.highWatermark()));
            }
            System.out.println("quorum " + admin.describeMetadataQuorum().quorumInfo().get());
        }
    }
}
