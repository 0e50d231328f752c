package io.raftline.tests.kafka;

import io.raftline.tests.cluster.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
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

    void createTopic(String name, int partitions, int replicationFactor) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) replicationFactor))).all().get(60, TimeUnit.SECONDS);
    }
}
