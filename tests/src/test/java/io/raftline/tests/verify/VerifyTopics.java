package io.raftline.tests.verify;

import io.raftline.tests.cluster.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The topics a `raftline verify` run creates ({@code verify-<run>-<i>}), as the verify tests watch them. */
final class VerifyTopics {

    private VerifyTopics() {
    }

    /** The cluster's verify topics, sorted. */
    static List<String> of(TestCluster cluster) throws Exception {
        return cluster.admin().listTopics().names().get(30, TimeUnit.SECONDS).stream().filter(t -> t.startsWith("verify-"))
            .sorted().toList();
    }

    /** Waits until a run has created its topics; returns the first. */
    static String awaitFirst(TestCluster cluster) throws Exception {
        TestCluster.await(() -> {
            try {
                return !of(cluster).isEmpty();
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(60), "verify to create its topics");
        return of(cluster).get(0);
    }
}
