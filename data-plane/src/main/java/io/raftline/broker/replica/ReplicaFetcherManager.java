package io.raftline.broker.replica;

import io.raftline.grpc.TransportSecurity;
import io.raftline.common.Time;
import io.raftline.common.Uuid;
import io.raftline.metadata.image.BrokerRegistration;
import io.raftline.protocol.metadata.Endpoint;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The follower side of replication: one {@link ReplicaFetcher} (one thread, one gRPC stream) per leader broker,
 * carrying every partition this broker follows on that leader. Called from the metadata thread.
 */
public final class ReplicaFetcherManager implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFetcherManager.class);

    /** Follower fetch settings ({@code replica.fetch.*}). */
    public record Settings(int maxWaitMs, int minBytes, int maxBytesPerPartition, int maxBytes, int backoffMs,
                           int requestTimeoutMs, TransportSecurity security) {
        /** Plaintext links to the leaders. */
        public Settings(int maxWaitMs, int minBytes, int maxBytesPerPartition, int maxBytes, int backoffMs, int requestTimeoutMs) {
            this(maxWaitMs, minBytes, maxBytesPerPartition, maxBytes, backoffMs, requestTimeoutMs, TransportSecurity.plaintext());
        }
    }

    private final int brokerId;
    private final ReplicaManager replicaManager;
    private final Settings settings;
    private final Time time;
    private final ReplicationQuotas quotas;
    private final Map<Integer, ReplicaFetcher> fetchers = new HashMap<>();
    private final Map<TopicPartition, Integer> leaderOf = new HashMap<>();

    ReplicaFetcherManager(int brokerId, ReplicaManager replicaManager, Settings settings, Time time,
                          ReplicationQuotas quotas) {
        this.brokerId = brokerId;
        this.quotas = quotas;
        this.replicaManager = replicaManager;
        this.settings = settings;
        this.time = time;
    }

    synchronized void addPartition(TopicPartition tp, Uuid topicId, BrokerRegistration leader, int leaderEpoch,
                                   Partition partition) {
        removePartition(tp);
        Endpoint endpoint = leader.endpoint("broker").orElse(null);
        if (endpoint == null) {
            LOG.warn("{}: leader {} has no broker endpoint; cannot follow it", tp, leader.id());
            return;
        }
        ReplicaFetcher fetcher = fetchers.get(leader.id());
        if (fetcher != null && !fetcher.endpointMatches(endpoint)) {
            fetcher.close();
            fetchers.remove(leader.id());
            fetcher = null;
        }
        if (fetcher == null) {
            fetcher = new ReplicaFetcher(brokerId, replicaManager::localBrokerEpoch, leader.id(), endpoint, settings, time,
                quotas);
            fetcher.onReplicated(replicaManager::followerAppended);
            fetcher.start();
            fetchers.put(leader.id(), fetcher);
        }
        fetcher.addPartition(tp, leaderEpoch, partition);
        leaderOf.put(tp, leader.id());
    }

    synchronized void removePartition(TopicPartition tp) {
        Integer leader = leaderOf.remove(tp);
        if (leader == null) {
            return;
        }
        ReplicaFetcher fetcher = fetchers.get(leader);
        if (fetcher != null) {
            fetcher.removePartition(tp);
            if (fetcher.isIdle()) {
                fetcher.close();
                fetchers.remove(leader);
            }
        }
    }

    @Override
    public synchronized void close() {
        fetchers.values().forEach(ReplicaFetcher::close);
        fetchers.clear();
        leaderOf.clear();
    }
}
