package io.raftline.tests.kafka;

import io.raftline.tests.cluster.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A three-node test cluster set up for group tests, with Kafka's own Admin on its Kafka listeners, started before a
 * test class's tests and closed after them: register it as a {@code static} {@code @RegisterExtension} field.
 */
final class KafkaListenerCluster implements BeforeAllCallback, AfterAllCallback {

    private TestCluster cluster;
    private Admin admin;

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = TestCluster.builder().combined(3).groupTesting(5).start();
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        admin = Admin.create(props);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    TestCluster cluster() {
        return cluster;
    }

    /** kafka-clients' Admin on the Kafka listeners. */
    Admin admin() {
        return admin;
    }

    /**
     * Creates the topic and waits until every broker's metadata has it with a leader for each partition: a create is
     * answered once the controller has committed it, and the other brokers' images follow a moment later, so a
     * client asking another broker at once (Admin asks the least loaded one) may not see it yet, as with Kafka.
     */
    void createTopic(String name, int partitions, int replicationFactor) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) replicationFactor))).all().get(60, TimeUnit.SECONDS);
        for (io.raftline.tests.cluster.TestNode node : cluster.nodes()) {
            if (node.isBroker()) {
                TestCluster.await(() -> knows(node.kafkaPort(), name, partitions), Duration.ofSeconds(30),
                    "broker " + node.id() + " to know topic " + name);
            }
        }
    }

    private static boolean knows(int port, String topic, int partitions) {
        try {
            MetadataResponse answer = (MetadataResponse) KafkaWire.send(port,
                new MetadataRequest.Builder(List.of(topic), false).build((short) 12));
            return answer.topicMetadata().stream().anyMatch(t -> t.topic().equals(topic) && t.error() == Errors.NONE
                && t.partitionMetadata().size() == partitions
                && t.partitionMetadata().stream().allMatch(p -> p.leaderId.isPresent()));
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
