package io.raftline.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.raftline.common.SystemTime;
import io.raftline.metadata.client.ControllerChannel;
import io.raftline.metadata.controller.ControllerConfig;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.controller.AddVoterRequest;
import io.raftline.protocol.controller.RemoveVoterRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A voter that lost its Raft log (a wiped disk, re-formatted with a new directory id) must not vote with an empty
 * log: with the other up-to-date voter down, its vote would elect the stale one, which then overwrites entries
 * that were committed without it. Real 3-voter Ratis quorums on loopback.
 */
class WipedVoterTest {

    @Test
    @Timeout(180)
    void aWipedVoterDoesNotElectAStaleLeaderAndRejoinsAsANewMember() throws Exception {
        try (TestQuorum q = new TestQuorum(3, "wiped", 10_000, ControllerConfig.builder().brokerSessionTimeoutMs(60_000).build())) {
            QuorumNode leader = q.awaitActive();
            int a = leader.nodeId();
            int b = a % 3 + 1;
            int c = b % 3 + 1;
            // Every voter has recorded the directory it joined with.
            await().atMost(Duration.ofSeconds(30)).until(() -> q.nodes.values().stream()
                .allMatch(n -> n.image().voterDirectories().size() == 3));
            long committed;
            // One channel for the fake broker's heartbeat and both creations: a broker whose heartbeat connection
            // closes (and which sends no more) is fenced two heartbeat intervals later, whatever its session.
            try (ControllerChannel channel = new ControllerChannel(q.controllerEndpoints(), SystemTime.INSTANCE, 20_000)) {
                QuorumFailoverTest.registerOneBroker(channel, q.clusterId);
                channel.createTopics(QuorumFailoverTest.topic("before")).get(10, TimeUnit.SECONDS);

                // B falls behind; a topic is committed by A and C alone.
                q.stop(b);
                committed = channel.createTopics(QuorumFailoverTest.topic("committed-without-b")).get(20, TimeUnit.SECONDS)
                    .getMetadataIndex();
            }
            assertThat(committed).isPositive();

            // A and C go down; C's disk is lost and re-formatted. B (stale) and C (empty) come back first.
            q.stop(a);
            q.stop(c);
            q.wipe(c);
            q.start(b);
            CompletableFuture<QuorumNode> cStart = CompletableFuture.supplyAsync(() -> {
                try {
                    return q.start(c);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            // Then A, the only voter with the whole log.
            q.start(a);

            // C is refused once the quorum (A and B) answers that it joined with another directory.
            Throwable refused = null;
            try {
                cStart.get(120, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                refused = e.getCause();
            }
            assertThat(refused).as("the wiped voter's start").isInstanceOf(QuorumServer.QuorumStorageException.class)
                .hasMessageContaining("lost its log").hasMessageContaining("quorum remove-voter --id " + c);
            QuorumNode active = q.awaitActive();
            await().atMost(Duration.ofSeconds(30)).until(() -> active.image().topic("committed-without-b").isPresent());
            assertThat(q.nodes.get(b).image().index()).isGreaterThanOrEqualTo(0);
            await().atMost(Duration.ofSeconds(30)).until(() -> q.nodes.get(b).image().topic("committed-without-b").isPresent());

            // The operator's way back: demote C, start it (it catches up as an observer), promote it.
            try (ControllerChannel channel = new ControllerChannel(q.controllerEndpoints(), SystemTime.INSTANCE, 20_000)) {
                assertThat(channel.removeVoter(RemoveVoterRequest.newBuilder().setId(c).build()).get(30, TimeUnit.SECONDS)
                    .getError().getCode()).isEqualTo(ErrorCode.NONE);
                QuorumNode back = q.start(c);
                await().atMost(Duration.ofSeconds(30)).until(() -> back.image().topic("committed-without-b").isPresent()
                    && q.directoryIds.get(c).equals(active.image().voterDirectories().get(c)));
                assertThat(back.quorumServer().voters()).as("C is not a voter yet").noneMatch(p -> p.getId()
                    .equals(QuorumServer.peerId(c)));
                assertThat(channel.addVoter(AddVoterRequest.newBuilder().setId(c)
                    .setEndpoint("127.0.0.1:" + q.voters.get(c).getPort()).build()).get(60, TimeUnit.SECONDS)
                    .getError().getCode()).isEqualTo(ErrorCode.NONE);
                await().atMost(Duration.ofSeconds(30)).until(() -> active.quorumServer().voters().stream()
                    .anyMatch(p -> p.getId().equals(QuorumServer.peerId(c))));
            }
        }
    }

    /** A quorum of one has nobody to ask: its first start formats (the suite's single-node clusters failed here). */
    @Test
    @Timeout(60)
    void aQuorumOfOneStartsOnEmptyStorage() throws Exception {
        try (TestQuorum q = new TestQuorum(1, "alone", 10_000, ControllerConfig.builder().build())) {
            QuorumNode only = q.awaitActive();
            await().atMost(Duration.ofSeconds(30)).until(() -> only.image().voterDirectories().containsKey(1));
        }
    }

}
