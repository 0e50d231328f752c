package io.raftline.client.internals.metadata;

import io.raftline.client.common.Cluster;
import io.raftline.client.common.Node;
import io.raftline.client.common.PartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.errors.ApiException;
import io.raftline.client.errors.AuthenticationException;
import io.raftline.client.errors.Errors;
import io.raftline.client.errors.InterruptException;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.errors.RetriableException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.errors.UnknownTopicOrPartitionException;
import io.raftline.client.internals.net.BrokerConnection;
import io.raftline.client.internals.net.ConnectionPool;
import io.raftline.client.internals.net.GrpcErrors;
import io.raftline.client.internals.retry.ExponentialBackoff;
import io.raftline.common.Time;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.BrokerInfo;
import io.raftline.protocol.broker.LeaderHint;
import io.raftline.protocol.broker.MetadataRequest;
import io.raftline.protocol.broker.MetadataResponse;
import io.raftline.protocol.broker.PartitionMetadata;
import io.raftline.protocol.broker.TopicMetadata;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's metadata cache: an immutable {@link Cluster} swapped on each refresh, the topics the client cares
 * about, and the refresh policy (every {@code metadata.max.age.ms}, at once when someone reports stale leadership,
 * never more often than the retry backoff). At most one Metadata request is in flight; callers share its future.
 * Brokers are asked in turn, starting with one that has not failed recently, so a dead bootstrap address costs
 * one timeout and no more; a refresh asked for because of stale leadership goes to the next broker.
 */
public final class Metadata {

    private static final Logger LOG = LoggerFactory.getLogger(Metadata.class);
    /** How much longer than a call's own deadline {@link #fetchAllTopics} waits for it before giving the attempt up. */
    private static final long ATTEMPT_WAIT_SLACK_MS = 1000;

    private final List<Node> bootstrap;
    private final ConnectionPool pool;
    private final Time time;
    private final ExponentialBackoff backoff;
    private final DoubleSupplier random;
    private final long maxAgeMs;
    private final long requestTimeoutMs;

    private volatile Cluster cluster;
    private final Set<String> topics = new HashSet<>();
    private final Map<String, ApiException> topicErrors = new HashMap<>();
    private boolean allTopics;
    private boolean updateRequested = true;
    /** A caller reported stale leadership since the last refresh started (see {@link #refresh()}). */
    private boolean staleLeadershipReported;
    private long lastRefreshMs = Long.MIN_VALUE / 2;
    private long lastAttemptMs = Long.MIN_VALUE / 2;
    /** Failed refreshes in a row, and the wait they earned (drawn once per failure, so every check agrees). */
    private int failures;
    private long currentBackoffMs;
    private long version;
    private int nextNode;
    private CompletableFuture<Cluster> inFlight;

    /**
     * Creates the cache knowing only the bootstrap addresses. A refresh is never retried sooner than
     * {@code backoff} allows after the failures before it (retry.backoff.ms doubling up to retry.backoff.max.ms, with
     * jitter drawn from {@code random}), nor more often than retry.backoff.ms after a success.
     */
    public Metadata(List<Node> bootstrap, ConnectionPool pool, Time time, ExponentialBackoff backoff, DoubleSupplier random,
                    long maxAgeMs, long requestTimeoutMs) {
        this.bootstrap = List.copyOf(bootstrap);
        this.pool = pool;
        this.time = time;
        this.backoff = backoff;
        this.random = random;
        this.currentBackoffMs = backoff.initialMs();
        this.maxAgeMs = maxAgeMs;
        this.requestTimeoutMs = requestTimeoutMs;
        this.cluster = Cluster.bootstrap(bootstrap);
    }

    /** Parses {@code bootstrap.servers} entries ({@code host:port}) into nodes without ids. */
    public static List<Node> parseBootstrap(List<String> servers) {
        List<Node> nodes = new ArrayList<>();
        for (String s : servers) {
            int colon = s.lastIndexOf(':');
            String host = s.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            nodes.add(new Node(Node.NO_ID, host, Integer.parseInt(s.substring(colon + 1)), null));
        }
        return nodes;
    }

    /** The current snapshot. */
    public Cluster cluster() {
        return cluster;
    }

    /** Incremented on every successful refresh. */
    public synchronized long version() {
        return version;
    }

    /** Adds topics the client uses; a new one triggers a refresh. */
    public synchronized void addTopics(Iterable<String> names) {
        for (String t : names) {
            if (topics.add(t)) {
                updateRequested = true;
            }
        }
    }

    /** Asks for every topic in the cluster on each refresh. */
    public synchronized void setAllTopics(boolean all) {
        this.allTopics = all;
        updateRequested = true;
    }

    /**
     * Marks the snapshot stale (a NOT_LEADER, an unknown partition): the next {@link #maybeRefresh()} refreshes, and
     * asks another broker than the previous refresh did.
     */
    public synchronized void requestUpdate() {
        updateRequested = true;
        staleLeadershipReported = true;
    }

    /** The error metadata returned for {@code topic} in the last refresh (e.g. INVALID_TOPIC), or null. */
    public synchronized ApiException topicError(String topic) {
        return topicErrors.get(topic);
    }

    /** Whether a refresh is due now: requested or too old, and not within the backoff of the last attempt. */
    public synchronized boolean updateDue(long nowMs) {
        boolean wanted = updateRequested || nowMs - lastRefreshMs >= maxAgeMs;
        return wanted && inFlight == null && nowMs - lastAttemptMs >= currentBackoffMs;
    }

    /** Starts a refresh if one is due; returns without waiting. */
    public void maybeRefresh() {
        if (updateDue(time.hiResMilliseconds())) {
            refresh();
        }
    }

    /** Starts a refresh now (or joins the one in flight) and returns its future. */
    public synchronized CompletableFuture<Cluster> refresh() {
        if (inFlight != null) {
            return inFlight;
        }
        lastAttemptMs = time.hiResMilliseconds();
        if (staleLeadershipReported) {
            // Asked because a broker said it does not lead what this snapshot says it does: ask another broker than
            // last time, as the one asked may be the deposed leader itself, cut off from the controller and answering
            // its own stale view (the client would then go back to it until the cut heals).
            nextNode++;
            staleLeadershipReported = false;
        }
        MetadataRequest request = MetadataRequest.newBuilder().addAllTopics(allTopics ? List.of() : topics)
            .setAllTopics(allTopics).build();
        List<Node> candidates = candidates();
        Node node = candidates.get(Math.floorMod(nextNode, candidates.size()));
        BrokerConnection conn = pool.get(node);
        CompletableFuture<Cluster> result = conn.<MetadataResponse>unary((s, o) -> s.metadata(request, o), requestTimeoutMs)
            .handle((response, error) -> {
                pool.metrics().metadataRefreshed(error == null);
                if (error != null) {
                    failed(error);
                    throw GrpcErrors.toException(error, conn.address());
                }
                return apply(response);
            });
        // The call can fail on this thread (the handler above then ran already, under this monitor, and cleared
        // inFlight): a finished future must not be kept as the one in flight, or no refresh would ever start again and
        // the client would keep sending to a dead leader (the coordinator-failover test lost a partition that way).
        if (!result.isDone()) {
            inFlight = result;
        }
        return result;
    }

    private synchronized void failed(Throwable error) {
        LOG.debug("metadata refresh failed: {}", error.toString());
        inFlight = null;
        nextNode++;
        failures++;
        currentBackoffMs = backoff.backoffMs(failures, random.getAsDouble());
    }

    private synchronized Cluster apply(MetadataResponse response) {
        inFlight = null;
        failures = 0;
        currentBackoffMs = backoff.initialMs();
        Cluster next = toCluster(response, cluster);
        topicErrors.clear();
        for (TopicMetadata t : response.getTopicsList()) {
            if (t.getError().getCode() != ErrorCode.NONE) {
                topicErrors.put(t.getName(), Errors.toException(t.getError()));
            }
        }
        cluster = next;
        version++;
        if (LOG.isDebugEnabled()) {
            StringBuilder leaders = new StringBuilder();
            for (String t : topics) {
                for (PartitionInfo p : next.partitionsForTopic(t)) {
                    leaders.append(' ').append(p.partition()).append('=').append(p.leader() == null ? "none" : p.leader().id())
                        .append(':').append(p.leaderEpoch());
                }
            }
            LOG.debug("metadata v{}: leaders{}", version, leaders);
        }
        updateRequested = false;
        lastRefreshMs = time.hiResMilliseconds();
        notifyAll();
        return next;
    }

    /** A broker to send a request to that any broker can answer; rotates away from brokers that failed. */
    public synchronized Node pickNode() {
        List<Node> candidates = candidates();
        return candidates.get(Math.floorMod(nextNode, candidates.size()));
    }

    /** Reports that the broker from {@link #pickNode()} failed, so the next pick is another one. */
    public synchronized void nodeFailed() {
        nextNode++;
    }

    /** Known brokers first (they come from metadata), then the bootstrap addresses. */
    private List<Node> candidates() {
        Map<String, Node> byAddress = new LinkedHashMap<>();
        for (Node n : cluster.nodes()) {
            if (n.id() != Node.NO_ID) {
                byAddress.put(n.address(), n);
            }
        }
        for (Node n : bootstrap) {
            byAddress.putIfAbsent(n.address(), n);
        }
        return new ArrayList<>(byAddress.values());
    }

    /**
     * Blocks until metadata knows {@code topic}'s partitions, refreshing as needed, until {@code deadlineMs} (on the
     * monotonic clock). A non-retriable topic error (an invalid name) and a refused login fail at once.
     *
     * @throws TimeoutException when the topic is still unknown at the deadline
     */
    public Cluster awaitTopic(String topic, long deadlineMs) {
        addTopics(List.of(topic));
        RaftlineException last = null;
        while (true) {
            Cluster c = cluster;
            if (!c.partitionsForTopic(topic).isEmpty()) {
                return c;
            }
            ApiException topicError = topicError(topic);
            if (topicError != null && !(topicError instanceof RetriableException)) {
                throw topicError;
            }
            long remaining = deadlineMs - time.hiResMilliseconds();
            if (remaining <= 0) {
                String why = topicError != null ? topicError.getMessage() : last != null ? last.getMessage() : "not in metadata";
                throw new TimeoutException("Topic " + topic + " not present in metadata after the wait: " + why);
            }
            Refreshed r = refreshWithin(remaining);
            if (r.cluster() != null && !r.cluster().partitionsForTopic(topic).isEmpty()) {
                continue;
            }
            if (r.error() instanceof AuthenticationException refused) {
                throw refused; // as Kafka's clients: a credential or certificate refused is not retried
            }
            if (r.error() != null) {
                last = r.error();
            }
            backoffIfRecentlyTried(deadlineMs);
        }
    }

    /**
     * What {@code partitionsFor} answers, as Kafka's clients do: refreshes until metadata describes {@code topic} and
     * returns its partitions, or an empty list when the cluster says the topic does not exist. A failed refresh (a dead
     * broker, a timeout) and a retriable topic error (no leader yet) are retried every {@code retry.backoff.ms} until
     * {@code deadlineMs} (monotonic clock); a non-retriable topic error (an invalid name) fails at once.
     *
     * @throws TimeoutException when no refresh answered for the topic by the deadline
     */
    public List<PartitionInfo> fetchTopic(String topic, long deadlineMs) {
        addTopics(List.of(topic));
        RaftlineException last = null;
        while (true) {
            long remaining = deadlineMs - time.hiResMilliseconds();
            if (remaining <= 0) {
                throw new TimeoutException("Timeout expired while fetching metadata of topic " + topic
                    + (last == null ? "" : ": " + last.getMessage()));
            }
            // Always a fresh answer: the caller asks because its snapshot may be stale.
            Refreshed r = refreshWithin(remaining);
            if (r.cluster() != null) {
                ApiException topicError = topicError(topic);
                if (topicError == null) {
                    return r.cluster().partitionsForTopic(topic);
                }
                if (topicError instanceof UnknownTopicOrPartitionException) {
                    return List.of();
                }
                if (!(topicError instanceof RetriableException)) {
                    throw topicError;
                }
                last = topicError;
            } else {
                last = r.error();
            }
            LOG.debug("metadata of topic {} not available yet, retrying: {}", topic, last.getMessage());
            backoffIfRecentlyTried(deadlineMs);
        }
    }

    /**
     * What the consumer's {@code listTopics} answers: every topic in the cluster, from a Metadata request of its own
     * (the cache and the topics it follows stay as they are). A broker that is down, restarting or slow fails the
     * attempt, not the call: the next attempt goes to another broker after the backoff (doubling from {@code retry.backoff.ms}), until
     * {@code deadlineMs} (monotonic clock); each attempt waits at most {@code request.timeout.ms}. A non-retriable
     * failure (the broker broke the contract) fails at once.
     *
     * @throws TimeoutException when no broker answered by the deadline
     */
    public Cluster fetchAllTopics(long deadlineMs) {
        MetadataRequest request = MetadataRequest.newBuilder().setAllTopics(true).build();
        RaftlineException last = null;
        int failed = 0;
        while (true) {
            long startMs = time.hiResMilliseconds();
            long remaining = deadlineMs - startMs;
            if (remaining <= 0) {
                throw new TimeoutException("Timeout expired while listing topics" + (last == null ? "" : ": " + last.getMessage()));
            }
            BrokerConnection conn = pool.get(pickNode());
            long attemptMs = Math.min(requestTimeoutMs, remaining);
            try {
                // The call's own deadline ends it; the wait on the future is a backstop a little longer than that.
                MetadataResponse response = conn.<MetadataResponse>unary((s, o) -> s.metadata(request, o), attemptMs)
                    .get(attemptMs + ATTEMPT_WAIT_SLACK_MS, TimeUnit.MILLISECONDS);
                return toCluster(response, null);
            } catch (InterruptedException e) {
                throw new InterruptException(e);
            } catch (ExecutionException e) {
                RaftlineException error = GrpcErrors.toException(e, conn.address());
                if (!(error instanceof RetriableException)) {
                    throw error;
                }
                last = error;
            } catch (java.util.concurrent.TimeoutException e) {
                last = new TimeoutException("No response from " + conn.address() + " in time", e);
            }
            nodeFailed();
            LOG.debug("listing topics failed, retrying with another broker: {}", last.getMessage());
            failed++;
            long wait = Math.min(backoff.backoffMs(failed, random.getAsDouble()) - (time.hiResMilliseconds() - startMs),
                deadlineMs - time.hiResMilliseconds());
            if (wait > 0) {
                try {
                    time.sleep(wait);
                } catch (InterruptedException e) {
                    throw new InterruptException(e);
                }
            }
        }
    }

    /** A refresh's answer, or (cluster null) the error that stands for a failed or late one. */
    private record Refreshed(Cluster cluster, RaftlineException error) {
    }

    /** Asks for fresh metadata and waits for it up to {@code remainingMs}. */
    private Refreshed refreshWithin(long remainingMs) {
        CompletableFuture<Cluster> f = refreshAfterBackoff();
        try {
            return new Refreshed(f.get(remainingMs, TimeUnit.MILLISECONDS), null);
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        } catch (ExecutionException e) {
            return new Refreshed(null, GrpcErrors.toException(e, "metadata"));
        } catch (java.util.concurrent.TimeoutException e) {
            return new Refreshed(null, new TimeoutException("metadata request did not finish in time"));
        }
    }

    private synchronized CompletableFuture<Cluster> refreshAfterBackoff() {
        updateRequested = true;
        return refresh();
    }

    private void backoffIfRecentlyTried(long deadlineMs) {
        long wait;
        synchronized (this) {
            wait = Math.min(currentBackoffMs - (time.hiResMilliseconds() - lastAttemptMs), deadlineMs - time.hiResMilliseconds());
        }
        if (wait > 0) {
            try {
                time.sleep(wait);
            } catch (InterruptedException e) {
                throw new InterruptException(e);
            }
        }
    }

    /**
     * Applies a leader hint that came with NOT_LEADER so the next attempt goes to the new leader without waiting for a
     * refresh; ignored when it is not newer than what the cache holds. A refresh is requested either way.
     */
    public synchronized void applyLeaderHint(TopicPartition tp, LeaderHint hint) {
        updateRequested = true;
        PartitionInfo old = cluster.partition(tp);
        if (old == null || hint == null || hint.getLeaderId() < 0 || hint.getLeaderEpoch() <= old.leaderEpoch()) {
            return;
        }
        Node leader = cluster.nodeById(hint.getLeaderId());
        List<Node> nodes = new ArrayList<>(cluster.nodes());
        if (leader == null && hint.hasEndpoint()) {
            leader = new Node(hint.getLeaderId(), hint.getEndpoint().getHost(), hint.getEndpoint().getPort(), null);
            nodes.add(leader);
        }
        if (leader == null) {
            return;
        }
        List<PartitionInfo> parts = new ArrayList<>();
        for (String t : cluster.topics()) {
            for (PartitionInfo p : cluster.partitionsForTopic(t)) {
                parts.add(p.topicPartition().equals(tp)
                    ? new PartitionInfo(p.topic(), p.partition(), leader, hint.getLeaderEpoch(), p.replicas(), p.inSyncReplicas(),
                        p.offlineReplicas())
                    : p);
            }
        }
        Map<String, String> ids = new HashMap<>();
        for (String t : cluster.topics()) {
            if (cluster.topicId(t) != null) {
                ids.put(t, cluster.topicId(t));
            }
        }
        cluster = new Cluster(cluster.clusterId(), nodes, parts, cluster.controller(), ids, cluster.internalTopics());
    }

    /** Builds a snapshot from a Metadata response; fenced brokers are kept as nodes but never as leaders. */
    public static Cluster toCluster(MetadataResponse response, Cluster previous) {
        Map<Integer, Node> nodes = new HashMap<>();
        Set<Integer> fenced = new HashSet<>();
        for (BrokerInfo b : response.getBrokersList()) {
            nodes.put(b.getId(), new Node(b.getId(), b.getHost(), b.getPort(), b.getRack().isEmpty() ? null : b.getRack()));
            if (b.getFenced()) {
                fenced.add(b.getId());
            }
        }
        List<PartitionInfo> partitions = new ArrayList<>();
        Map<String, String> ids = new HashMap<>();
        Set<String> internal = new HashSet<>();
        for (TopicMetadata t : response.getTopicsList()) {
            if (t.getError().getCode() != ErrorCode.NONE) {
                continue;
            }
            if (!t.getTopicId().isEmpty()) {
                ids.put(t.getName(), Base64.getUrlEncoder().withoutPadding().encodeToString(t.getTopicId().toByteArray()));
            }
            if (t.getInternal()) {
                internal.add(t.getName());
            }
            for (PartitionMetadata p : t.getPartitionsList()) {
                Node leader = p.getLeader() >= 0 && !fenced.contains(p.getLeader()) ? nodes.get(p.getLeader()) : null;
                partitions.add(new PartitionInfo(t.getName(), p.getPartition(), leader, p.getLeaderEpoch(),
                    toNodes(p.getReplicasList(), nodes), toNodes(p.getIsrList(), nodes), toNodes(p.getOfflineReplicasList(), nodes)));
            }
        }
        Node controller = nodes.get(response.getControllerId());
        return new Cluster(response.getClusterId().isEmpty() ? null : response.getClusterId(), nodes.values(), partitions,
            controller, ids, internal);
    }

    private static List<Node> toNodes(List<Integer> ids, Map<Integer, Node> nodes) {
        List<Node> out = new ArrayList<>(ids.size());
        for (int id : ids) {
            out.add(nodes.getOrDefault(id, new Node(id, "", -1, null)));
        }
        return out;
    }
}
