package io.raftline.metadata.quorum;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One quorum node's settings. Immutable; build with {@link #builder()}; the server's config parser fills it from
 * server.properties ({@code node.id}, {@code quorum.listener}, {@code controller.listener}, {@code quorum.voters},
 * {@code metadata.dir}, {@code metadata.snapshot.records}).
 *
 * <p>Ratis timeouts: a follower starts an election after 350–700 ms (randomized) without hearing from the leader,
 * and the leader sends heartbeats at half the minimum, every 175 ms. So a dead leader is replaced in about 0.4–0.8 s,
 * and a leader survives a stall (GC pause, a starved thread on a busy 2-core machine) of up to ~350 ms without a
 * needless election: our heaps are small and G1 pauses on them are tens of milliseconds. The first election after
 * start waits 200–400 ms so a fresh cluster is ready quickly.
 */
public final class QuorumConfig {

    private final int nodeId;
    private final String clusterId;
    private final String quorumHost;
    private final int quorumPort;
    private final String controllerHost;
    private final int controllerPort;
    private final String controllerAdvertisedHost;
    private final Map<Integer, InetSocketAddress> voters;
    private final Path metadataDir;
    private final long snapshotRecords;
    private final long electionTimeoutMinMs;
    private final long electionTimeoutMaxMs;
    private final long firstElectionTimeoutMinMs;
    private final long firstElectionTimeoutMaxMs;
    private final long requestTimeoutMs;
    private final int cachedEntries;
    private final QuorumSecurity security;
    private final String directoryId;

    private QuorumConfig(Builder b) {
        this.nodeId = b.nodeId;
        this.clusterId = Objects.requireNonNull(b.clusterId, "cluster id");
        this.quorumHost = b.quorumHost;
        this.quorumPort = b.quorumPort;
        this.controllerHost = b.controllerHost;
        this.controllerPort = b.controllerPort;
        this.controllerAdvertisedHost = b.controllerAdvertisedHost == null ? b.controllerHost : b.controllerAdvertisedHost;
        this.voters = Map.copyOf(new TreeMap<>(b.voters));
        this.metadataDir = Objects.requireNonNull(b.metadataDir, "metadata.dir");
        this.snapshotRecords = b.snapshotRecords;
        this.electionTimeoutMinMs = b.electionTimeoutMinMs;
        this.electionTimeoutMaxMs = b.electionTimeoutMaxMs;
        this.firstElectionTimeoutMinMs = b.firstElectionTimeoutMinMs;
        this.firstElectionTimeoutMaxMs = b.firstElectionTimeoutMaxMs;
        this.requestTimeoutMs = b.requestTimeoutMs;
        this.cachedEntries = b.cachedEntries;
        this.security = Objects.requireNonNull(b.security, "security");
        this.directoryId = Objects.requireNonNull(b.directoryId, "directory id");
        if (nodeId < 0) {
            throw new IllegalArgumentException("node.id must be >= 0");
        }
        if (clusterId.isEmpty()) {
            throw new IllegalArgumentException("cluster id is empty");
        }
        if (voters.isEmpty()) {
            throw new IllegalArgumentException("quorum.voters is empty");
        }
        if (snapshotRecords < 1) {
            throw new IllegalArgumentException("metadata.snapshot.records must be positive");
        }
        if (electionTimeoutMinMs < 50 || electionTimeoutMaxMs <= electionTimeoutMinMs) {
            throw new IllegalArgumentException("election timeouts must satisfy 50 <= min < max");
        }
        if (firstElectionTimeoutMaxMs <= firstElectionTimeoutMinMs) {
            throw new IllegalArgumentException("first election timeouts must satisfy min < max");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The directory id of this node's metadata dir (from its meta.properties), with which it registers in the quorum
     * (KIP-853's voter key is id and directory id); empty when unknown, and then it never registers.
     */
    public String directoryId() {
        return directoryId;
    }

    public int nodeId() {
        return nodeId;
    }

    public String clusterId() {
        return clusterId;
    }

    /** quorum.listener host (Ratis binds here). */
    public String quorumHost() {
        return quorumHost;
    }

    /** quorum.listener port; 0 picks a free one (tests). */
    public int quorumPort() {
        return quorumPort;
    }

    /** controller.listener host (our gRPC ControllerService binds here). */
    public String controllerHost() {
        return controllerHost;
    }

    /** controller.listener port; 0 picks a free one (tests). */
    public int controllerPort() {
        return controllerPort;
    }

    /** The host others use to reach controller.listener (defaults to {@link #controllerHost()}). */
    public String controllerAdvertisedHost() {
        return controllerAdvertisedHost;
    }

    /** quorum.voters: node id to quorum.listener address; seeds the first start only. */
    public Map<Integer, InetSocketAddress> voters() {
        return voters;
    }

    /** metadata.dir; Ratis keeps its storage in {@code <metadata.dir>/ratis}. */
    public Path metadataDir() {
        return metadataDir;
    }

    /**
     * metadata.snapshot.records (default 10000): a snapshot is taken after this many Raft entries since the last
     * one. Each entry is one controller decision of one or more records, so snapshots come at most this many
     * records apart, usually sooner.
     */
    public long snapshotRecords() {
        return snapshotRecords;
    }

    public long electionTimeoutMinMs() {
        return electionTimeoutMinMs;
    }

    public long electionTimeoutMaxMs() {
        return electionTimeoutMaxMs;
    }

    public long firstElectionTimeoutMinMs() {
        return firstElectionTimeoutMinMs;
    }

    public long firstElectionTimeoutMaxMs() {
        return firstElectionTimeoutMaxMs;
    }

    /** How long a Ratis request (a write, a ReadIndex, a membership change) may take before it fails. */
    public long requestTimeoutMs() {
        return requestTimeoutMs;
    }

    /** How many recent entries are kept in memory for metadata fetchers (older: a snapshot is sent). */
    public int cachedEntries() {
        return cachedEntries;
    }

    /** TLS of the controller and quorum listeners; plaintext unless set. */
    public QuorumSecurity security() {
        return security;
    }

    /** Fluent builder with the defaults documented on the getters. */
    public static final class Builder {
        private int nodeId = -1;
        private String clusterId;
        private String quorumHost = "127.0.0.1";
        private int quorumPort = 9093;
        private String controllerHost = "127.0.0.1";
        private int controllerPort = 9094;
        private String controllerAdvertisedHost;
        private Map<Integer, InetSocketAddress> voters = Map.of();
        private Path metadataDir;
        private long snapshotRecords = 10_000;
        private long electionTimeoutMinMs = 350;
        private long electionTimeoutMaxMs = 700;
        private long firstElectionTimeoutMinMs = 200;
        private long firstElectionTimeoutMaxMs = 400;
        private long requestTimeoutMs = 3000;
        private int cachedEntries = 20_000;
        private QuorumSecurity security = QuorumSecurity.PLAINTEXT;
        private String directoryId = "";

        private Builder() {
        }

        public Builder nodeId(int v) {
            nodeId = v;
            return this;
        }

        public Builder clusterId(String v) {
            clusterId = v;
            return this;
        }

        public Builder quorumListener(String host, int port) {
            quorumHost = host;
            quorumPort = port;
            return this;
        }

        public Builder controllerListener(String host, int port) {
            controllerHost = host;
            controllerPort = port;
            return this;
        }

        public Builder controllerAdvertisedHost(String v) {
            controllerAdvertisedHost = v;
            return this;
        }

        public Builder voters(Map<Integer, InetSocketAddress> v) {
            voters = v;
            return this;
        }

        public Builder metadataDir(Path v) {
            metadataDir = v;
            return this;
        }

        public Builder snapshotRecords(long v) {
            snapshotRecords = v;
            return this;
        }

        public Builder electionTimeoutMs(long min, long max) {
            electionTimeoutMinMs = min;
            electionTimeoutMaxMs = max;
            return this;
        }

        public Builder firstElectionTimeoutMs(long min, long max) {
            firstElectionTimeoutMinMs = min;
            firstElectionTimeoutMaxMs = max;
            return this;
        }

        public Builder requestTimeoutMs(long v) {
            requestTimeoutMs = v;
            return this;
        }

        public Builder cachedEntries(int v) {
            cachedEntries = v;
            return this;
        }

        public Builder security(QuorumSecurity v) {
            security = v;
            return this;
        }

        /** The metadata dir's directory id (its meta.properties): this node's identity in the quorum with its id. */
        public Builder directoryId(String v) {
            directoryId = v;
            return this;
        }

        public QuorumConfig build() {
            return new QuorumConfig(this);
        }
    }
}
