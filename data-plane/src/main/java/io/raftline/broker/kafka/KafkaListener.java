package io.raftline.broker.kafka;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.raftline.broker.metrics.BusyTime;
import io.raftline.broker.metrics.CpuTimeThreads;
import io.raftline.broker.rpc.ConnectionLimits;
import io.raftline.broker.rpc.ProduceAdmission;
import io.raftline.common.config.HostPort;
import io.raftline.grpc.ServerSasl;
import io.raftline.grpc.TransportSecurity;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The broker's Kafka wire-protocol listener ({@code kafka.listener}): a Netty server whose connections each run a
 * {@link KafkaFrameDecoder} then a {@link KafkaConnection}. Nothing on its event loops blocks: handlers return
 * futures completed by the broker's own services. Two event-loop threads serve every connection (the handlers only
 * translate; the work happens in the replica manager, the group coordinator and the controller).
 */
public final class KafkaListener implements AutoCloseable {

    private static final int EVENT_LOOP_THREADS = 2;

    private final EventLoopGroup group;
    private final Channel channel;
    private final CpuTimeThreads threads;

    private KafkaListener(EventLoopGroup group, Channel channel, CpuTimeThreads threads) {
        this.group = group;
        this.channel = channel;
        this.threads = threads;
    }

    /** The event loops' busy time (their CPU time), for the network-thread idle ratio. */
    public BusyTime busyTime() {
        return threads;
    }

    /**
     * Listens on {@code address}. {@code maxFrameBytes}: socket.request.max.bytes; {@code maxInFlight}: unanswered
     * requests per connection before it stops reading.
     */
    public static KafkaListener start(HostPort address, KafkaApis apis, ProduceAdmission admission, int maxFrameBytes,
                                      int maxInFlight, TransportSecurity security, ServerSasl sasl, ConnectionLimits limits) {
        return start(address, (KafkaHandler) apis, admission, maxFrameBytes, maxInFlight, security, sasl, limits);
    }

    public static KafkaListener start(HostPort address, KafkaApis apis, ProduceAdmission admission, int maxFrameBytes,
                                      int maxInFlight) {
        return start(address, (KafkaHandler) apis, admission, maxFrameBytes, maxInFlight);
    }

    static KafkaListener start(HostPort address, KafkaHandler apis, ProduceAdmission admission, int maxFrameBytes,
                               int maxInFlight) {
        return start(address, apis, admission, maxFrameBytes, maxInFlight, TransportSecurity.plaintext(), null,
            ConnectionLimits.NONE);
    }

    /**
     * {@code security}: TLS (SSL or SASL_SSL) or plaintext; {@code sasl}: non-null on a SASL_SSL listener, where a
     * connection must authenticate (SaslHandshake, SaslAuthenticate) or show a client certificate before anything else.
     */
    static KafkaListener start(HostPort address, KafkaHandler apis, ProduceAdmission admission, int maxFrameBytes,
                               int maxInFlight, TransportSecurity security, ServerSasl sasl, ConnectionLimits limits) {
        io.netty.handler.ssl.SslContext tls = security.plainServerContext();
        CpuTimeThreads threads = new CpuTimeThreads("kafka-listener", EVENT_LOOP_THREADS);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(EVENT_LOOP_THREADS, threads, NioIoHandler.newFactory());
        ServerBootstrap bootstrap = new ServerBootstrap()
            .group(group)
            .channelFactory(limits.serverChannels())
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    if (tls != null) {
                        ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                    }
                    ch.pipeline().addLast(new KafkaFrameDecoder(maxFrameBytes),
                        new KafkaConnection(apis, admission, maxInFlight, security, sasl));
                }
            });
        try {
            Channel channel = bootstrap.bind(new InetSocketAddress(address.host(), address.port())).sync().channel();
            return new KafkaListener(group, channel, threads);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw new IllegalStateException("interrupted while binding kafka.listener " + address, e);
        } catch (Exception e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            if (e instanceof BindException) {
                throw new UncheckedIOException("cannot listen on kafka.listener " + address + ": " + e.getMessage(),
                    (BindException) e);
            }
            throw new IllegalStateException("cannot listen on kafka.listener " + address + ": " + e.getMessage(), e);
        }
    }

    /** The bound port (the one asked for, or the one chosen for port 0). */
    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
}
