package io.raftline.broker.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** max.connections and max.connections.per.ip: the decision as a table, then applied to sockets a real server accepts. */
@Timeout(30)
class ConnectionLimitsTest {

    private static InetAddress ip(String s) throws IOException {
        return InetAddress.getByName(s);
    }

    @Test
    void perAddressThenOverridesThenTheBrokerWideLimit() throws IOException {
        ConnectionLimits limits = new ConnectionLimits(4, 2, Map.of(ip("10.0.0.9"), 3, ip("10.0.0.8"), 0));
        assertThat(limits.admit(ip("10.0.0.1"))).isTrue();
        assertThat(limits.admit(ip("10.0.0.1"))).isTrue();
        assertThat(limits.admit(ip("10.0.0.1"))).as("third from one address").isFalse();
        assertThat(limits.admit(ip("10.0.0.8"))).as("an override of 0 shuts an address out").isFalse();
        assertThat(limits.admit(ip("10.0.0.9"))).isTrue();
        assertThat(limits.admit(ip("10.0.0.9"))).isTrue();
        assertThat(limits.admit(ip("10.0.0.9"))).as("its override allows 3, but the broker holds 4 already").isFalse();
        limits.release(ip("10.0.0.1"));
        assertThat(limits.admit(ip("10.0.0.9"))).isTrue();
        assertThat(limits.open()).isEqualTo(4);
        assertThat(limits.refused()).isEqualTo(3);
        assertThatThrownBy(() -> limits.release(ip("10.0.0.7"))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void overridesParseAsKafkaWritesThemAndBadOnesNameTheEntry() throws IOException {
        assertThat(ConnectionLimits.parseOverrides(List.of("127.0.0.1:5", " 10.0.0.2 : 100 ")))
            .containsEntry(ip("127.0.0.1"), 5).containsEntry(ip("10.0.0.2"), 100);
        assertThatThrownBy(() -> ConnectionLimits.parseOverrides(List.of("127.0.0.1"))).hasMessage("'127.0.0.1' is not host:count");
        assertThatThrownBy(() -> ConnectionLimits.parseOverrides(List.of("127.0.0.1:x"))).hasMessageContaining("not a number");
        assertThatThrownBy(() -> ConnectionLimits.parseOverrides(List.of("127.0.0.1:-1"))).hasMessageContaining("at least 0");
    }

    /** Writes one byte to each connection it is given. */
    @io.netty.channel.ChannelHandler.Sharable
    private static final class Greeter extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte('k'));
        }
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(10_000);
        return s;
    }

    @Test
    void aSocketPastTheLimitIsClosedAsItIsAcceptedAndItsPlaceComesBack() throws Exception {
        ConnectionLimits limits = new ConnectionLimits(100, 1, Map.of());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channelFactory(limits.serverChannels())
                .childHandler(new Greeter()).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            try (Socket first = connect(port)) {
                assertThat(first.getInputStream().read()).isEqualTo('k');
                try (Socket second = connect(port)) {
                    assertThat(second.getInputStream().read()).as("closed before any byte").isEqualTo(-1);
                }
                assertThat(limits.refused()).isEqualTo(1);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> limits.open() == 0);
            try (Socket third = connect(port)) {
                assertThat(third.getInputStream().read()).isEqualTo('k');
            }
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }
}
