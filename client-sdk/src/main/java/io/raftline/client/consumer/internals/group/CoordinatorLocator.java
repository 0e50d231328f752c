package io.raftline.client.consumer.internals.group;

import io.raftline.client.common.Node;
import io.raftline.client.errors.ApiException;
import io.raftline.client.errors.Errors;
import io.raftline.client.errors.InterruptException;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.errors.RetriableException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.common.Time;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.group.FindCoordinatorRequest;
import io.raftline.protocol.group.FindCoordinatorResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a group's coordinator (FindCoordinator through the host's brokers, in turn) and holds the channel to it until
 * a call says it moved; also the retry timing every group call shares. Guarded by its own monitor, never held while
 * calling the network or {@code onFound}; callers may hold their own lock when they call in (never the reverse).
 */
final class CoordinatorLocator implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CoordinatorLocator.class);

    private final GroupMembershipConfig config;
    private final GroupHost host;
    private final Time time;
    private final Runnable onFound;
    private final Map<String, GroupChannel> brokerChannels = new HashMap<>();
    private Node coordinator;
    private GroupChannel channel;
    /** The FindCoordinator call under way, kept across callers' deadlines; null when none is. */
    private CompletableFuture<FindCoordinatorResponse> inFlight;
    private int attempts;
    private boolean closed;

    /** @param onFound runs (outside this object's monitor) each time a coordinator is found */
    CoordinatorLocator(GroupMembershipConfig config, GroupHost host, Time time, Runnable onFound) {
        this.config = config;
        this.host = host;
        this.time = time;
        this.onFound = onFound;
    }

    /** The channel to the coordinator, or null while it is unknown. */
    synchronized GroupChannel current() {
        return channel;
    }

    /** The coordinator, or null while it is unknown. */
    synchronized Node coordinator() {
        return coordinator;
    }

    /**
     * The coordinator's channel, looking it up until {@code deadlineMs} if unknown.
     *
     * @throws TimeoutException if no broker named a coordinator in time
     * @throws ApiException     for an error that retrying cannot fix
     */
    GroupChannel ensure(long deadlineMs) {
        while (true) {
            CompletableFuture<FindCoordinatorResponse> lookup;
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("the group coordinator client is closed");
                }
                if (channel != null) {
                    return channel;
                }
                if (inFlight == null) {
                    List<Node> brokers = host.brokers();
                    if (!brokers.isEmpty()) {
                        // Bounded by request.timeout.ms, not by the caller's deadline: a poll(20 ms) that stops
                        // waiting leaves the lookup running for the next poll (a fresh connection alone can take longer).
                        Node broker = brokers.get(Math.floorMod(attempts++, brokers.size()));
                        FindCoordinatorRequest req = FindCoordinatorRequest.newBuilder().setGroupId(config.groupId()).build();
                        inFlight = brokerChannel(broker).findCoordinator(req, config.requestTimeoutMs());
                    }
                }
                lookup = inFlight;
            }
            RaftlineException last = null;
            if (lookup != null) {
                FindCoordinatorResponse r;
                try {
                    long waitMs = deadlineMs - time.milliseconds();
                    r = waitMs > 0 ? lookup.get(waitMs, TimeUnit.MILLISECONDS) : lookup.getNow(null);
                } catch (java.util.concurrent.TimeoutException e) {
                    r = null;
                } catch (InterruptedException e) {
                    throw new InterruptException("interrupted while looking up the coordinator", e);
                } catch (ExecutionException e) {
                    r = null;
                    last = e.getCause() instanceof RaftlineException re ? re : new RaftlineException(e.getCause().toString(), e.getCause());
                }
                if (r == null && last == null) {
                    throw new TimeoutException("could not find the coordinator of group " + config.groupId() + " in time");
                }
                synchronized (this) {
                    if (inFlight == lookup) {
                        inFlight = null;
                    }
                }
                if (r != null && r.getError().getCode() == ErrorCode.NONE) {
                    GroupChannel found = adopt(r);
                    onFound.run();
                    return found;
                }
                if (r != null) {
                    last = Errors.toException(r.getError());
                }
                if (last instanceof ApiException && !(last instanceof RetriableException)) {
                    throw last;
                }
            }
            backoffOrTimeout(deadlineMs, "find the coordinator of group " + config.groupId(), last);
        }
    }

    private synchronized GroupChannel adopt(FindCoordinatorResponse r) {
        if (channel == null) {
            coordinator = new Node(r.getNodeId(), r.getEndpoint().getHost(), r.getEndpoint().getPort(), null);
            // The channel FindCoordinator went over is often already connected to the coordinator: share it.
            channel = brokerChannel(coordinator);
            LOG.info("group {}: coordinator is broker {}", config.groupId(), coordinator);
        }
        return channel;
    }

    private synchronized GroupChannel brokerChannel(Node b) {
        return brokerChannels.computeIfAbsent(b.address(), a -> new GroupChannel(b.host(), b.port(), config.clientId(),
            config.security()));
    }

    /** Forgets the coordinator if {@code ch} is still the current channel: the next call looks it up again. */
    synchronized void failed(GroupChannel ch, String why) {
        if (ch != null && ch == channel) {
            LOG.info("group {}: coordinator {} unavailable ({}); looking it up again", config.groupId(), coordinator, why);
            // Closed and forgotten for lookups too: a fresh channel connects at once when the broker is back, where
            // this one could sit out gRPC's reconnect backoff.
            brokerChannels.remove(channel.address(), channel);
            channel.close();
            channel = null;
            coordinator = null;
        }
    }

    /** At most {@code capMs}, at least 1, and no later than the deadline. */
    long remaining(long deadlineMs, long capMs) {
        return Math.max(1, Math.min(capMs, deadlineMs - time.milliseconds()));
    }

    /** Sleeps retry.backoff.ms (less if the deadline is nearer); false if the deadline has passed. */
    boolean sleepBackoff(long deadlineMs) {
        long left = deadlineMs - time.milliseconds();
        if (left <= 0) {
            return false;
        }
        try {
            time.sleep(Math.min(left, config.retryBackoffMs()));
        } catch (InterruptedException e) {
            throw new InterruptException("interrupted while waiting to retry", e);
        }
        return time.milliseconds() < deadlineMs;
    }

    /** Sleeps before a retry, or throws a TimeoutException naming {@code what} when the deadline passed. */
    void backoffOrTimeout(long deadlineMs, String what, RaftlineException cause) {
        if (!sleepBackoff(deadlineMs)) {
            String text = "could not " + what + " in time" + (cause == null ? "" : ": " + cause.getMessage());
            throw cause == null ? new TimeoutException(text) : new TimeoutException(text, cause);
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (channel != null) {
            channel.close();
        }
        channel = null;
        coordinator = null;
        brokerChannels.values().forEach(GroupChannel::close);
        brokerChannels.clear();
    }
}
