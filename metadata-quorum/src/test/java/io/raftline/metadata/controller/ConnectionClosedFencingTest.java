package io.raftline.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.raftline.metadata.image.PartitionRegistration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A broker whose heartbeat connection closed (its process died: the kernel closes a dead process's sockets at once)
 * is fenced once it has not heartbeated for two heartbeat intervals after the close, not a whole session later; a
 * live broker that reconnects with its next heartbeat is not. Session 10 s, heartbeats every 250 ms: the grace is
 * 500 ms.
 */
class ConnectionClosedFencingTest {

    private static ControllerTestContext cluster() {
        ControllerTestContext ctx = new ControllerTestContext(ControllerConfig.builder().autoLeaderRebalanceEnable(false)
            .brokerSessionTimeoutMs(10_000).brokerHeartbeatIntervalMs(250).build(), 7);
        ctx.startBrokers(3);
        ctx.createTopic("t", 3, 3, Map.of());
        ctx.tick(100, 1, 2, 3);
        return ctx;
    }

    /** Node 1 (broker 1's node) is the active controller with every broker heartbeating, then node 2 takes over. */
    private static ControllerTestContext controllerMovesFromNode1To2() {
        ControllerTestContext ctx = cluster();
        ctx.activateOn(1);
        ctx.tick(100, 1, 2, 3);
        ctx.activateOn(2);
        return ctx;
    }

    private static long epoch(ControllerTestContext ctx, int id) {
        return ctx.image.broker(id).orElseThrow().epoch();
    }

    @Test
    void aBrokerWhoseConnectionClosedAndThatSendsNothingIsFencedAfterTheGrace() {
        ControllerTestContext ctx = cluster();
        ctx.controller.heartbeatConnectionClosed(2, epoch(ctx, 2));
        for (int i = 0; i < 4; i++) {
            ctx.tick(100, 1, 3);
        }
        assertThat(ctx.image.broker(2).orElseThrow().fenced()).as("400 ms after the close: within the grace").isFalse();
        ctx.tick(100, 1, 3);
        ctx.tick(100, 1, 3);
        assertThat(ctx.image.broker(2).orElseThrow().fenced()).as("600 ms after the close, 10 s session").isTrue();
        assertThat(ctx.topic("t").partitions().values()).as("out of every ISR and leadership")
            .allMatch(p -> p.leader() != 2 && !p.isr().contains(2));
        assertThat(ctx.topic("t").partitions().values()).extracting(PartitionRegistration::leader).doesNotContain(-1);
        assertThat(ctx.image.broker(1).orElseThrow().fenced()).isFalse();
        assertThat(ctx.image.broker(3).orElseThrow().fenced()).isFalse();
    }

    @Test
    void aBrokerThatHeartbeatsAgainAfterItsConnectionClosedStaysActive() {
        ControllerTestContext ctx = cluster();
        ctx.controller.heartbeatConnectionClosed(2, epoch(ctx, 2));
        ctx.tick(250, 1, 3);
        // its next heartbeat, over a new connection
        for (int i = 0; i < 8; i++) {
            ctx.tick(250, 1, 2, 3);
        }
        assertThat(ctx.image.broker(2).orElseThrow().fenced()).isFalse();
    }

    @Test
    void aHeartbeatThatArrivedAfterTheCloseCountsEvenBeforeItIsDecided() {
        ControllerTestContext ctx = cluster();
        ctx.controller.heartbeatConnectionClosed(2, epoch(ctx, 2));
        ctx.tick(200, 1, 3);
        ctx.controller.heartbeatArrived(2, epoch(ctx, 2));
        for (int i = 0; i < 6; i++) {
            ctx.tick(100, 1, 3);
        }
        assertThat(ctx.image.broker(2).orElseThrow().fenced()).as("800 ms after the close, 600 ms after an arrival")
            .isFalse();
    }

    @Test
    void aCloseOfAnEarlierIncarnationsConnectionIsIgnored() {
        ControllerTestContext ctx = cluster();
        ctx.controller.heartbeatConnectionClosed(2, epoch(ctx, 2) - 1);
        for (int i = 0; i < 10; i++) {
            ctx.tick(100, 1, 3);
        }
        assertThat(ctx.image.broker(2).orElseThrow().fenced()).as("1 s without heartbeats, 10 s session").isFalse();
    }

    @Test
    void aBrokerCutOffWithoutItsConnectionClosingKeepsItsWholeSession() {
        ControllerTestContext ctx = cluster();
        for (int i = 0; i < 90; i++) {
            ctx.tick(100, 1, 3);
        }
        assertThat(ctx.image.broker(2).orElseThrow().fenced()).as("9 s of silence").isFalse();
        for (int i = 0; i < 15; i++) {
            ctx.tick(100, 1, 3);
        }
        assertThat(ctx.image.broker(2).orElseThrow().fenced()).isTrue();
    }

    @Test
    void aNewControllerTreatsTheBrokerOnItsPredecessorsNodeAsDisconnected() {
        // node 1 dies; its broker heartbeated its own controller in process, so no connection of its closes
        ControllerTestContext ctx = controllerMovesFromNode1To2();
        ctx.tick(100, 2, 3);
        ctx.tick(100, 2, 3);
        assertThat(ctx.image.broker(1).orElseThrow().fenced()).as("200 ms after the new controller's activation").isFalse();
        ctx.tick(100, 2, 3);
        assertThat(ctx.image.broker(1).orElseThrow().fenced()).as("300 ms after it, 10 s session").isTrue();
        assertThat(ctx.topic("t").partitions().values()).as("out of every ISR and leadership")
            .allMatch(p -> p.leader() != 1 && !p.isr().contains(1));
        assertThat(ctx.image.broker(2).orElseThrow().fenced()).isFalse();
        assertThat(ctx.image.broker(3).orElseThrow().fenced()).isFalse();
    }

    @Test
    void theBrokerOnTheDeposedControllersNodeStaysWhenItHeartbeatsTheNewOne() {
        ControllerTestContext ctx = controllerMovesFromNode1To2();
        ctx.tick(200, 2, 3);
        for (int i = 0; i < 40; i++) {
            ctx.tick(250, 1, 2, 3);
        }
        assertThat(ctx.image.brokers().values()).as("10 s later").noneMatch(b -> b.fenced());
    }

    @Test
    void everyOtherBrokerKeepsAWholeSessionAfterAControllerChange() {
        ControllerTestContext ctx = controllerMovesFromNode1To2();
        for (int i = 0; i < 90; i++) {
            ctx.tick(100, 1, 2);
        }
        assertThat(ctx.image.broker(3).orElseThrow().fenced()).as("9 s without a heartbeat from 3").isFalse();
        for (int i = 0; i < 15; i++) {
            ctx.tick(100, 1, 2);
        }
        assertThat(ctx.image.broker(3).orElseThrow().fenced()).isTrue();
    }

    @Test
    void theGraceIsNeverLongerThanTheSession() {
        ControllerConfig config = ControllerConfig.builder().brokerSessionTimeoutMs(300).brokerHeartbeatIntervalMs(250).build();
        assertThat(new BrokerControl(config, "c", null).connectionGraceMs()).isEqualTo(300);
        assertThat(new BrokerControl(config, "c", null).predecessorGraceMs()).isEqualTo(250);
        ControllerConfig usual = ControllerConfig.builder().build();
        assertThat(new BrokerControl(usual, "c", null).connectionGraceMs()).isEqualTo(500);
        assertThat(new BrokerControl(usual, "c", null).predecessorGraceMs()).isEqualTo(250);
    }
}
