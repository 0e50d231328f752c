package io.raftline.tests.kafka;

import io.raftline.tests.cluster.TestCluster;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.KafkaFuture;

/** Waiting on kafka-clients' Admin futures in the Kafka ITs: results, failures, and conditions with a deadline. */
final class AdminCalls {

    static final Duration WAIT = Duration.ofSeconds(30);

    private AdminCalls() {
    }

    /** kafka-clients' Admin over {@code cluster}'s Kafka listeners. */
    static Admin admin(TestCluster cluster) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", cluster.kafkaBootstrap());
        props.setProperty("default.api.timeout.ms", "30000");
        return Admin.create(props);
    }

    /** Closes a test class's Admin, then its cluster (either may be null: start-up failed). */
    static void close(Admin admin, TestCluster cluster) {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    static <T> T get(KafkaFuture<T> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS);
    }

    /** The cause of {@code call}'s failure (Admin futures wrap it in an ExecutionException); fails if it succeeds. */
    static Throwable failure(Callable<?> call) {
        try {
            call.call();
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError("expected a failure");
    }

    /**
     * Waits up to {@link #WAIT} for {@code condition}; a call that throws counts as "not yet" (a broker's image may
     * not hold a change the controller already answered for).
     */
    static void eventually(Callable<Boolean> condition, String what) {
        TestCluster.await(() -> {
            try {
                return condition.call();
            } catch (Exception e) {
                return false;
            }
        }, WAIT, what);
    }
}
