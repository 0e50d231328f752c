package io.raftline.broker.config;

import static io.raftline.common.config.ConfigDef.Type.BOOLEAN;
import static io.raftline.common.config.ConfigDef.Type.DOUBLE;
import static io.raftline.common.config.ConfigDef.Type.HOST_PORT;
import static io.raftline.common.config.ConfigDef.Type.INT;
import static io.raftline.common.config.ConfigDef.Type.LIST;
import static io.raftline.common.config.ConfigDef.Type.LONG;
import static io.raftline.common.config.ConfigDef.Type.STRING;
import static io.raftline.common.config.ConfigDef.all;
import static io.raftline.common.config.ConfigDef.atLeast;
import static io.raftline.common.config.ConfigDef.between;
import static io.raftline.common.config.ConfigDef.betweenDouble;
import static io.raftline.common.config.ConfigDef.eachOf;
import static io.raftline.common.config.ConfigDef.nonEmptyList;
import static io.raftline.common.config.ConfigDef.oneOf;

import io.raftline.common.config.ConfigDef;
import io.raftline.common.config.ConfigDef.UnknownKeys;
import io.raftline.common.config.ConfigException;
import io.raftline.common.config.HostPort;
import io.raftline.common.config.ReplicationThrottleConfig;
import io.raftline.common.tls.SecurityConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A node's configuration: {@code server.properties}, parsed and validated once at start. Kafka's key names and
 * defaults wherever the concept is the same; Raftline's own keys for its listeners and the quorum. Every key,
 * with its default and doc, is defined in {@link #DEF}; {@code config/server.properties} in the distribution
 * lists them all (a test keeps the two in step).
 */
public final class ServerConfig {

    public static final String NODE_ID = "node.id";
    public static final String PROCESS_ROLES = "process.roles";
    public static final String LOG_DIRS = "log.dirs";
    public static final String METADATA_DIR = "metadata.dir";
    public static final String BROKER_LISTENER = "broker.listener";
    public static final String BROKER_ADVERTISED_LISTENER = "broker.advertised.listener";
    public static final String QUORUM_LISTENER = "quorum.listener";
    public static final String CONTROLLER_LISTENER = "controller.listener";
    public static final String METRICS_LISTENER = "metrics.listener";
    public static final String CONSOLE_ADMIN_ENABLED = "console.admin.enabled";
    public static final String METRICS_PARTITION_SERIES_MAX = "metrics.partition.series.max";
    public static final String KAFKA_LISTENER = "kafka.listener";
    public static final String KAFKA_ADVERTISED_LISTENER = "kafka.advertised.listener";
    public static final String QUORUM_VOTERS = "quorum.voters";
    public static final String CONTROLLER_BOOTSTRAP_SERVERS = "controller.bootstrap.servers";
    public static final String BROKER_RACK = "broker.rack";

    /** Every key a node knows. Groups order the distribution's commented server.properties. */
    public static final ConfigDef DEF = SecurityConfig.defineServer(new ConfigDef()
        // The node
        .defineRequired(NODE_ID, INT, atLeast(0), "node", "This node's id, unique in the cluster.")
        .defineRequired(PROCESS_ROLES, LIST, all(nonEmptyList(), eachOf("broker", "controller")), "node",
            "The roles this process plays: broker, controller, or both (comma-separated).")
        .define(LOG_DIRS, LIST, List.of("/tmp/raftline-logs"), all(nonEmptyList(), ServerConfig::paths), "node",
            "Directories holding the partition logs (comma-separated); new partitions go to the dir with the fewest.")
        .define(METADATA_DIR, STRING, "/tmp/raftline-metadata", v -> paths(List.of(v)), "node",
            "Directory of a quorum node's Raft log and snapshots.")
        .define(BROKER_RACK, STRING, null, null, "node", "The rack of this broker, for rack-aware replica placement.")
        // Listeners
        .define(BROKER_LISTENER, HOST_PORT, HostPort.parse("0.0.0.0:9092"), null, "listeners",
            "Where the broker serves produce, fetch and admin requests (gRPC).")
        .define(BROKER_ADVERTISED_LISTENER, HOST_PORT, null, null, "listeners",
            "The address clients are told to use for this broker; defaults to broker.listener (with this host's name "
                + "in place of 0.0.0.0).")
        .define(QUORUM_LISTENER, HOST_PORT, HostPort.parse("0.0.0.0:9093"), null, "listeners",
            "Where a quorum node speaks Raft (Apache Ratis) with the other voters.")
        .define(CONTROLLER_LISTENER, HOST_PORT, HostPort.parse("0.0.0.0:9094"), null, "listeners",
            "Where a quorum node serves brokers: registration, heartbeats, AlterPartition, metadata fetch (gRPC).")
        .define(METRICS_LISTENER, HOST_PORT, HostPort.parse("0.0.0.0:9095"), null, "listeners",
            "HTTP: /metrics (Prometheus), /health, /ready, and the web console at /ui/.")
        .define(KAFKA_LISTENER, HOST_PORT, null, null, "listeners",
            "Where the broker speaks Apache Kafka's wire protocol, for Kafka's own clients and tools (off when unset). "
                + "docs/kafka-compatibility.md lists the APIs served.")
        .define(KAFKA_ADVERTISED_LISTENER, HOST_PORT, null, null, "listeners",
            "The address Kafka clients are told to use for this broker (in Metadata answers); defaults to "
                + "kafka.listener (with this host's name in place of 0.0.0.0).")
        // Metrics
        .define(METRICS_PARTITION_SERIES_MAX, INT, 10_000, atLeast(0), "metrics",
            "Per-partition series (labels topic and partition) are exported while a broker holds at most this many "
                + "partitions; above it only per-topic aggregates are, so a scrape stays bounded.")
        // The quorum
        .define(QUORUM_VOTERS, STRING, "", ConfigDef.parses(QuorumVoters::parse), "quorum",
            "The voters as id@host:port of their quorum.listener, comma-separated. Seeds the quorum's first start; "
                + "afterwards the membership in the Raft log wins.")
        .define(CONTROLLER_BOOTSTRAP_SERVERS, LIST, null, ConfigDef.eachHostPort(), "quorum",
            "host:port of the quorum nodes' controller.listener, for brokers to reach the controller. Defaults to each "
                + "voter's host with its quorum port + 1.")
        .define("metadata.snapshot.records", LONG, 20_000L, atLeast(1), "quorum",
            "Take a metadata snapshot after this many records since the last one.")
        .define("quorum.election.timeout.min.ms", INT, 400, atLeast(50), "quorum",
            "Lower bound of the Raft election timeout.")
        .define("quorum.election.timeout.max.ms", INT, 800, atLeast(100), "quorum",
            "Upper bound of the Raft election timeout.")
        .define("quorum.request.timeout.ms", INT, 3000, atLeast(100), "quorum",
            "Timeout of a Raft RPC between voters.")
        // The controller
        .define("broker.heartbeat.interval.ms", INT, 250, atLeast(10), "controller",
            "How often a broker heartbeats to the controller.")
        .define("broker.session.timeout.ms", INT, 1500, atLeast(100), "controller",
            "A broker that has not heartbeated for this long is fenced and its leaderships move; one whose heartbeat "
                + "connection closed (its process died) is fenced sooner, two heartbeat intervals after the close.")
        .define("num.partitions", INT, 1, atLeast(1), "controller", "Partitions of a topic created without a count.")
        .define("default.replication.factor", INT, 1, between(1, Short.MAX_VALUE), "controller",
            "Replication factor of a topic created without one.")
        .define("min.insync.replicas", INT, 1, atLeast(1), "controller",
            "With acks=all, a produce needs at least this many in-sync replicas.")
        .define("unclean.leader.election.enable", BOOLEAN, false, null, "controller",
            "Elect a leader from outside the ISR when no ISR member is alive (may lose acknowledged records).")
        .define("auto.create.topics.enable", BOOLEAN, true, null, "controller",
            "Create a topic with the defaults when a client asks for the metadata of one that does not exist.")
        .define("delete.topic.enable", BOOLEAN, true, null, "controller", "Allow topics to be deleted.")
        .define("auto.leader.rebalance.enable", BOOLEAN, true, null, "controller",
            "Move leadership back to preferred replicas when a broker's share drifts past the threshold.")
        .define("leader.imbalance.per.broker.percentage", INT, 10, between(0, 100), "controller",
            "The share of a broker's partitions led by others that triggers a preferred-leader election.")
        .define("leader.imbalance.check.interval.seconds", LONG, 300L, atLeast(1), "controller",
            "How often the controller checks leadership balance.")
        // The log
        .define("log.segment.bytes", INT, 1_073_741_824, atLeast(14), "log", "Roll a segment at this size.")
        .define("log.roll.hours", INT, 168, atLeast(1), "log", "Roll a segment at this age.")
        .define("log.roll.ms", LONG, null, atLeast(1), "log", "Roll a segment at this age (overrides log.roll.hours).")
        .define("log.index.interval.bytes", INT, 4096, atLeast(0), "log", "Bytes between entries of the sparse offset index.")
        .define("log.index.size.max.bytes", INT, 10_485_760, atLeast(64), "log", "Largest size of an index file.")
        .define("log.retention.hours", INT, 168, atLeast(-1), "log", "Delete segments older than this.")
        .define("log.retention.minutes", INT, null, atLeast(-1), "log", "Overrides log.retention.hours.")
        .define("log.retention.ms", LONG, null, atLeast(-1), "log", "Overrides log.retention.minutes (-1: forever).")
        .define("log.retention.bytes", LONG, -1L, atLeast(-1), "log", "Delete old segments past this size per partition (-1: no limit).")
        .define("log.retention.check.interval.ms", LONG, 300_000L, atLeast(1), "log", "How often retention runs.")
        .define("log.cleanup.policy", LIST, List.of("delete"), all(nonEmptyList(), eachOf("delete", "compact")), "log",
            "delete (by retention), compact (keep the last record per key), or both.")
        .define("log.cleaner.delete.retention.ms", LONG, 86_400_000L, atLeast(0), "log",
            "How long a compacted topic keeps tombstones.")
        .define("log.cleaner.enable", BOOLEAN, true, null, "log", "Run the compaction of compacted topics.")
        .define("log.cleaner.min.cleanable.ratio", DOUBLE, 0.5, betweenDouble(0, 1), "log",
            "Compact a log once this share of it is not yet compacted.")
        .define("log.cleaner.backoff.ms", LONG, 15_000L, atLeast(1), "log", "Pause of the cleaner when nothing needs compacting.")
        .define("log.cleaner.dedupe.buffer.size", LONG, 134_217_728L, atLeast(48), "log",
            "Most memory one compaction's key map may take (24 bytes per key; allocated per cleaning, no larger than the "
                + "range needs). A dirty range with more keys than fit is compacted in several passes.")
        .define("log.flush.scheduler.interval.ms", LONG, 1_000L, atLeast(1), "log",
            "How often logs are checked for a time-based flush (log.flush.interval.ms).")
        .define("log.flush.offset.checkpoint.interval.ms", LONG, 60_000L, atLeast(1), "log",
            "How often recovery points are written to disk.")
        .define("num.recovery.threads.per.data.dir", INT, 2, between(1, 1024), "log",
            "Threads that load each log dir at start (after an unclean stop each recovered log is fsynced).")
        .define("log.segment.delete.delay.ms", LONG, 60_000L, atLeast(0), "log", "Delay before a deleted segment's files go.")
        .define("log.flush.interval.messages", LONG, Long.MAX_VALUE, atLeast(1), "log",
            "fsync after this many messages (1: before every acknowledgement). Durability comes from replication.")
        .define("log.flush.interval.ms", LONG, null, atLeast(0), "log", "fsync a log at least this often.")
        .define("log.message.timestamp.type", STRING, "CreateTime", oneOf("CreateTime", "LogAppendTime"), "log",
            "Keep the producer's timestamps or stamp the broker's time.")
        .define("message.max.bytes", INT, 1_048_588, atLeast(0), "log", "The largest record batch a broker accepts.")
        .define("compression.type", STRING, "producer", oneOf("producer", "none", "gzip", "snappy", "lz4", "zstd"), "log",
            "Compression of stored batches; producer keeps what the producer sent.")
        // Replication
        .define("replica.lag.time.max.ms", LONG, 30_000L, atLeast(1), "replication",
            "A follower that has not caught up for this long leaves the ISR.")
        .define("replica.fetch.max.bytes", INT, 1_048_576, atLeast(0), "replication", "Bytes a follower asks for per partition.")
        .define("replica.fetch.response.max.bytes", INT, 10_485_760, atLeast(0), "replication", "Bytes a follower asks for per fetch.")
        .define("replica.fetch.wait.max.ms", INT, 500, atLeast(0), "replication", "Longest wait of a follower's fetch.")
        .define("replica.fetch.min.bytes", INT, 1, atLeast(1), "replication", "Least bytes a follower's fetch waits for.")
        .define("replica.fetch.backoff.ms", INT, 1000, atLeast(0), "replication", "Pause after a failed follower fetch.")
        .defineAll(ReplicationThrottleConfig.DEF)
        .define("replica.high.watermark.checkpoint.interval.ms", LONG, 5000L, atLeast(1), "replication",
            "How often high watermarks are written to disk.")
        .define("controlled.shutdown.enable", BOOLEAN, true, null, "replication",
            "On SIGTERM, move this broker's leaderships away before stopping.")
        .define("controlled.shutdown.timeout.ms", LONG, 30_000L, atLeast(0), "replication",
            "Longest wait for leaderships to move during a controlled shutdown.")
        // Requests
        .define("num.io.threads", INT, 8, atLeast(1), "requests", "Threads that handle requests.")
        .define("queued.max.requests", INT, 500, atLeast(1), "requests",
            "Produce requests a broker holds (read, not yet answered) before it stops reading from producers: past "
                + "it, flow control holds them back. Also bounds the acks=all produces waiting for replication.")
        .define("queued.max.request.bytes", LONG, 67_108_864L, atLeast(1), "requests",
            "Bytes of produce requests a broker holds before it stops reading from producers (as queued.max.requests).")
        .define("produce.stream.max.in.flight.requests", INT, 16, atLeast(1), "requests",
            "Produce requests one producer connection may have in flight at the broker; the next is read when one is "
                + "answered.")
        .define("fetch.stream.max.in.flight.requests", INT, 4, atLeast(1), "requests",
            "Fetch requests one consumer or follower connection may have in flight (parked in a long poll included).")
        .define("fetch.max.bytes", INT, 57_671_680, atLeast(1024), "requests",
            "The most record bytes one fetch answer carries, whatever the client asks for.")
        .define("max.incremental.fetch.session.cache.slots", INT, 1000, atLeast(0), "requests",
            "Incremental fetch sessions (KIP-227) this broker holds at once, for Kafka consumers and for followers: "
                + "a session's fetches name only the partitions that changed. Past it a new session evicts a stale or "
                + "smaller one (a follower's may evict a consumer's), or the fetcher goes on with full fetches; 0: no "
                + "sessions.")
        .define("max.connections", INT, Integer.MAX_VALUE, atLeast(0), "requests",
            "The most client connections the broker holds at once over broker.listener and kafka.listener together; "
                + "one past it is closed as it is accepted (Kafka's key).")
        .define("max.connections.per.ip", INT, Integer.MAX_VALUE, atLeast(0), "requests",
            "The most connections the broker holds at once from one IP address (both listeners), so one client "
                + "cannot take every socket.")
        .define("max.connections.per.principal", INT, Integer.MAX_VALUE, atLeast(0), "requests",
            "The most connections one principal (a client certificate's or a SCRAM user's) holds at once over both "
                + "listeners, from any addresses; a connection past it has its requests refused (the client retries). "
                + "Nodes, super.users and unauthenticated clients are not counted.")
        .define("max.connections.per.ip.overrides", LIST, List.of(), v -> {
                try {
                    @SuppressWarnings("unchecked")
                    List<String> entries = (List<String>) v;
                    io.raftline.broker.rpc.ConnectionLimits.parseOverrides(entries);
                    return null;
                } catch (IllegalArgumentException e) {
                    return e.getMessage();
                }
            }, "requests",
            "Per-address exceptions to max.connections.per.ip: host:count pairs, comma separated "
                + "(10.0.0.5:1000,monitor.example:5).")
        .define("socket.request.max.bytes", INT, 104_857_600, atLeast(1024), "requests",
            "The largest request message the broker reads (gRPC maxInboundMessageSize); at least message.max.bytes.")
        .define("broker.flow.control.window.bytes", INT, 8_388_608, atLeast(65_535), "requests",
            "HTTP/2 flow-control window of each stream on broker.listener: bytes a client may send ahead of what the "
                + "broker has read.")
        .define("request.timeout.ms", INT, 30_000, atLeast(1), "requests", "Longest wait for a broker-to-controller request.")
        // Groups
        .define("offsets.topic.num.partitions", INT, 50, atLeast(1), "groups", "Partitions of __consumer_offsets.")
        .define("offsets.topic.replication.factor", INT, 3, between(1, Short.MAX_VALUE), "groups",
            "Replication factor of __consumer_offsets (capped by the brokers alive when it is created).")
        .define("offsets.topic.segment.bytes", INT, 104_857_600, atLeast(14), "groups", "Segment size of __consumer_offsets.")
        .define("offsets.retention.minutes", INT, 10_080, atLeast(1), "groups",
            "Committed offsets of an empty group are dropped after this long.")
        .define("offsets.commit.timeout.ms", INT, 5000, atLeast(1), "groups", "Longest wait for an offset commit to replicate.")
        .define("group.initial.rebalance.delay.ms", INT, 3000, atLeast(0), "groups",
            "Wait this long for more members when an empty group gets its first.")
        .define("group.min.session.timeout.ms", INT, 6000, atLeast(1), "groups", "Smallest session timeout a consumer may ask for.")
        .define("group.max.session.timeout.ms", INT, 1_800_000, atLeast(1), "groups", "Largest session timeout a consumer may ask for.")
        // Console
        .define(CONSOLE_ADMIN_ENABLED, BOOLEAN, false, null, "console",
            "Let the web console at /ui/ create topics, elect preferred leaders and reset group offsets (each form "
                + "carries a CSRF token). Off: the console is read-only."),
        "security");

    private final Map<String, String> originals;
    private final Map<String, Object> values;

    private ServerConfig(Map<String, String> originals) {
        this.originals = Collections.unmodifiableMap(new LinkedHashMap<>(originals));
        this.values = DEF.parse(originals, UnknownKeys.REFUSE).values();
        checkConsistency();
    }

    /** A problem with any of these paths (a NUL character), else null: found here, not as a failed start. */
    private static String paths(Object list) {
        for (Object item : (List<?>) list) {
            try {
                Path.of(String.valueOf(item));
            } catch (java.nio.file.InvalidPathException e) {
                return "not a path: " + e.getReason();
            }
        }
        return null;
    }

    public static ServerConfig of(Map<String, String> props) {
        return new ServerConfig(props);
    }

    public static ServerConfig load(Path file) {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (NoSuchFileException e) {
            throw new ConfigException("config file " + file + " does not exist");
        } catch (IOException | IllegalArgumentException e) {
            // IllegalArgumentException: a malformed \\uXXXX escape
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (String name : props.stringPropertyNames()) {
            map.put(name, props.getProperty(name));
        }
        return new ServerConfig(map);
    }

    private void checkConsistency() {
        if (isController() && quorumVoters().isEmpty()) {
            throw new ConfigException("missing required config key 'quorum.voters' (a controller must know the voters)");
        }
        if (isBroker() && controllerBootstrapServers().isEmpty()) {
            throw new ConfigException("missing config key 'quorum.voters' or 'controller.bootstrap.servers' "
                + "(a broker must find the controller)");
        }
        if (getInt("quorum.election.timeout.max.ms") <= getInt("quorum.election.timeout.min.ms")) {
            throw new ConfigException("invalid value for config key 'quorum.election.timeout.max.ms': "
                + "must be above quorum.election.timeout.min.ms");
        }
        if (getInt("broker.session.timeout.ms") <= getInt("broker.heartbeat.interval.ms")) {
            throw new ConfigException("invalid value for config key 'broker.session.timeout.ms': "
                + "must be above broker.heartbeat.interval.ms");
        }
        if (get(KAFKA_ADVERTISED_LISTENER) != null && kafkaListener() == null) {
            throw new ConfigException("invalid value for config key 'kafka.advertised.listener': "
                + "set kafka.listener too (the Kafka listener is off without it)");
        }
        if (getInt("group.max.session.timeout.ms") < getInt("group.min.session.timeout.ms")) {
            throw new ConfigException("invalid value for config key 'group.max.session.timeout.ms': "
                + "must be at least group.min.session.timeout.ms");
        }
    }

    /** The keys and raw values as written in the file (for the log defaults of every partition). */
    public Map<String, String> originals() {
        return originals;
    }

    /** Every key with its effective value rendered as text (defaults filled in). */
    public Map<String, String> effectiveValues() {
        Map<String, String> out = new LinkedHashMap<>();
        values.forEach((k, v) -> out.put(k, originals.containsKey(k) ? originals.get(k) : ConfigDef.render(v)));
        return out;
    }

    public Object get(String key) {
        if (!values.containsKey(key)) {
            throw new IllegalArgumentException("no such config key: " + key);
        }
        return values.get(key);
    }

    public int getInt(String key) {
        return (Integer) get(key);
    }

    public long getLong(String key) {
        return (Long) get(key);
    }

    public boolean getBoolean(String key) {
        return (Boolean) get(key);
    }

    public String getString(String key) {
        return (String) get(key);
    }

    @SuppressWarnings("unchecked")
    public List<String> getList(String key) {
        return (List<String>) get(key);
    }

    public int nodeId() {
        return getInt(NODE_ID);
    }

    public boolean isBroker() {
        return getList(PROCESS_ROLES).contains("broker");
    }

    public boolean isController() {
        return getList(PROCESS_ROLES).contains("controller");
    }

    public List<Path> logDirs() {
        return getList(LOG_DIRS).stream().map(Path::of).toList();
    }

    public Path metadataDir() {
        return Path.of(getString(METADATA_DIR));
    }

    public HostPort brokerListener() {
        return (HostPort) get(BROKER_LISTENER);
    }

    /** The broker address given to clients: the advertised listener, else the listener with a real host. */
    public HostPort brokerAdvertisedListener() {
        HostPort advertised = (HostPort) get(BROKER_ADVERTISED_LISTENER);
        if (advertised != null) {
            return advertised;
        }
        return withRealHost(brokerListener());
    }

    /** A wildcard listener's address as clients can reach it: this host's name in place of 0.0.0.0 or ::. */
    private static HostPort withRealHost(HostPort listener) {
        if (listener.host().equals("0.0.0.0") || listener.host().equals("::")) {
            return new HostPort(LocalHost.name(), listener.port());
        }
        return listener;
    }

    /** The Kafka protocol listener, or null when it is off. */
    public HostPort kafkaListener() {
        return (HostPort) get(KAFKA_LISTENER);
    }

    /** The Kafka address given to clients (null when the listener is off). */
    public HostPort kafkaAdvertisedListener() {
        HostPort listener = kafkaListener();
        if (listener == null) {
            return null;
        }
        HostPort advertised = (HostPort) get(KAFKA_ADVERTISED_LISTENER);
        return advertised != null ? advertised : withRealHost(listener);
    }

    public HostPort quorumListener() {
        return (HostPort) get(QUORUM_LISTENER);
    }

    public HostPort controllerListener() {
        return (HostPort) get(CONTROLLER_LISTENER);
    }

    public HostPort metricsListener() {
        return (HostPort) get(METRICS_LISTENER);
    }

    public Map<Integer, HostPort> quorumVoters() {
        return QuorumVoters.parse(getString(QUORUM_VOTERS));
    }

    /** The controller.listener addresses of the quorum nodes (explicit, or derived from quorum.voters). */
    public List<HostPort> controllerBootstrapServers() {
        List<String> explicit = getList(CONTROLLER_BOOTSTRAP_SERVERS);
        List<HostPort> out = new ArrayList<>();
        if (explicit != null) {
            for (String s : explicit) {
                out.add(HostPort.parse(s));
            }
            return out;
        }
        for (HostPort voter : quorumVoters().values()) {
            out.add(new HostPort(voter.host(), voter.port() + 1));
        }
        return out;
    }

    public String rack() {
        return getString(BROKER_RACK);
    }
}
