package io.raftline.broker.rpc;

import io.netty.channel.ChannelFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many client connections a broker holds at once, as Kafka's {@code max.connections} (the whole broker) and
 * {@code max.connections.per.ip} (with {@code max.connections.per.ip.overrides}), over broker.listener and
 * kafka.listener together: one client cannot take every socket. A connection past a limit is closed as it is
 * accepted, before any byte is read (Kafka does the same), with a log line; the client sees the connection refused
 * and retries as it would after any connection failure.
 *
 * <p>The decision ({@link #admit}, {@link #release}) is plain code; {@link #serverChannels()} applies it to the
 * sockets a Netty server accepts.
 */
public final class ConnectionLimits {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimits.class);
    public static final ConnectionLimits NONE = new ConnectionLimits(Integer.MAX_VALUE, Integer.MAX_VALUE, Map.of());

    private final int maxTotal;
    private final int maxPerIp;
    private final Map<InetAddress, Integer> overrides;
    private final Map<InetAddress, Integer> open = new HashMap<>();
    private int total;
    private final AtomicLong refused = new AtomicLong();

    public ConnectionLimits(int maxTotal, int maxPerIp, Map<InetAddress, Integer> overrides) {
        this.maxTotal = maxTotal;
        this.maxPerIp = maxPerIp;
        this.overrides = Map.copyOf(overrides);
    }

    /**
     * {@code max.connections.per.ip.overrides}: {@code host:count} pairs, comma separated (Kafka's syntax); an
     * {@link IllegalArgumentException} naming the bad entry otherwise.
     */
    public static Map<InetAddress, Integer> parseOverrides(List<String> entries) {
        Map<InetAddress, Integer> out = new HashMap<>();
        for (String entry : entries) {
            String e = entry.trim();
            int colon = e.lastIndexOf(':');
            if (colon <= 0 || colon == e.length() - 1) {
                throw new IllegalArgumentException("'" + entry + "' is not host:count");
            }
            int count;
            try {
                count = Integer.parseInt(e.substring(colon + 1).trim());
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException("'" + entry + "': the count after ':' is not a number");
            }
            if (count < 0) {
                throw new IllegalArgumentException("'" + entry + "': the count must be at least 0");
            }
            try {
                out.put(InetAddress.getByName(e.substring(0, colon).trim()), count);
            } catch (UnknownHostException ex) {
                throw new IllegalArgumentException("'" + entry + "': unknown host '" + e.substring(0, colon) + "'");
            }
        }
        return out;
    }

    /** Whether a new connection from {@code address} may stay; if so it counts until {@link #release}. */
    public synchronized boolean admit(InetAddress address) {
        int limit = overrides.getOrDefault(address, maxPerIp);
        int fromThere = open.getOrDefault(address, 0);
        if (total >= maxTotal || fromThere >= limit) {
            long n = refused.incrementAndGet();
            if (n == 1 || n % 1000 == 0) {
                LOG.warn("refusing a connection from {}: {} open from there (limit {}), {} on this broker (limit {}); "
                    + "{} refused so far", address.getHostAddress(), fromThere, limit, total, maxTotal, n);
            }
            return false;
        }
        open.put(address, fromThere + 1);
        total++;
        return true;
    }

    public synchronized void release(InetAddress address) {
        Integer n = open.get(address);
        if (n == null) {
            throw new IllegalStateException("released a connection from " + address + " that was never admitted");
        }
        if (n == 1) {
            open.remove(address);
        } else {
            open.put(address, n - 1);
        }
        total--;
    }

    public synchronized int open() {
        return total;
    }

    public long refused() {
        return refused.get();
    }

    /** Server channels (NIO) that close an accepted socket past a limit before it reaches the pipeline. */
    public ChannelFactory<ServerChannel> serverChannels() {
        return () -> new LimitedServerChannel(this);
    }

    private static final class LimitedServerChannel extends NioServerSocketChannel {
        private final ConnectionLimits limits;

        LimitedServerChannel(ConnectionLimits limits) {
            this.limits = limits;
        }

        @Override
        protected int doReadMessages(List<Object> buf) throws Exception {
            int before = buf.size();
            int read = super.doReadMessages(buf);
            for (int i = buf.size() - 1; i >= before; i--) {
                if (buf.get(i) instanceof NioSocketChannel child) {
                    InetSocketAddress remote = child.remoteAddress();
                    InetAddress address = remote == null ? null : remote.getAddress();
                    if (address == null) {
                        continue;
                    }
                    if (limits.admit(address)) {
                        child.closeFuture().addListener(f -> limits.release(address));
                    } else {
                        buf.remove(i);
                        read--;
                        child.unsafe().closeForcibly();
                    }
                }
            }
            return read;
        }
    }
}
