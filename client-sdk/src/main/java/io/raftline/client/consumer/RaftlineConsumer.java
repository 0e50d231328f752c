package io.raftline.client.consumer;

import io.raftline.client.internals.net.ClientSecurity;
import io.micrometer.core.instrument.MeterRegistry;
import io.raftline.client.common.MetricName;
import io.raftline.client.internals.metrics.ClientMeters;
import io.raftline.client.common.Cluster;
import io.raftline.client.common.PartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.config.CommonClientConfigs;
import io.raftline.client.common.serialization.Deserializer;
import io.raftline.client.errors.ConfigException;
import io.raftline.client.errors.InterruptException;
import io.raftline.client.errors.NoOffsetForPartitionException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.errors.WakeupException;
import io.raftline.client.internals.consumer.ConsumerMetrics;
import io.raftline.client.internals.consumer.CoordinatorGroupMembership;
import io.raftline.client.internals.consumer.Fetcher;
import io.raftline.client.internals.consumer.GroupMembership;
import io.raftline.client.internals.consumer.OffsetFetcher;
import io.raftline.client.internals.consumer.SubscriptionState;
import io.raftline.client.internals.metadata.Metadata;
import io.raftline.client.internals.net.ConnectionPool;
import io.raftline.client.internals.net.RequestMetrics;
import io.raftline.client.internals.net.GrpcErrors;
import io.raftline.client.internals.retry.ExponentialBackoff;
import io.raftline.common.SystemTime;
import io.raftline.common.Time;
import java.time.Duration;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Raftline consumer, a drop-in for Kafka's {@code KafkaConsumer}: {@code poll} returns records of the assigned
 * partitions from their positions; the next fetch is sent before {@code poll} returns, so it travels while the
 * application works. With {@code group.id} it joins a consumer group on {@code subscribe} (the group assigns the
 * partitions, rebalance listeners hear about changes, positions start at the group's committed offsets, else where
 * {@code auto.offset.reset} says) and commits offsets ({@code commitSync}, {@code commitAsync}, and with
 * {@code enable.auto.commit} every {@code auto.commit.interval.ms} at a poll, before a rebalance and on close).
 * Without {@code group.id}, {@code subscribe} and commits throw {@link IllegalStateException}; {@code assign} works.
 * Asynchronous commit callbacks run on the consumer's commit thread. Not thread-safe except {@link #wakeup()}.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public class RaftlineConsumer<K, V> implements Consumer<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(RaftlineConsumer.class);
    private static final long NO_THREAD = -1L;

    private final ConsumerConfig config;
    private final String clientId;
    private final Time time;
    private final Deserializer<K> keyDeserializer;
    private final Deserializer<V> valueDeserializer;
    private final List<ConsumerInterceptor<K, V>> interceptors;
    private final ConnectionPool pool;
    private final ClientMeters meters;
    private final Metadata metadata;
    private final SubscriptionState subscriptions;
    private final OffsetFetcher offsetFetcher;
    private final Fetcher<K, V> fetcher;
    private final GroupMembership group;
    private final ConsumerMetrics metrics;
    private final int maxPollRecords;
    private final int defaultApiTimeoutMs;
    private final int requestTimeoutMs;
    private final AtomicLong currentThread = new AtomicLong(NO_THREAD);
    private final AtomicBoolean wakeupRequested = new AtomicBoolean();
    private volatile boolean closed;

    /** A consumer whose deserializers come from {@code key.deserializer} and {@code value.deserializer}. */
    public RaftlineConsumer(Properties properties) {
        this(new ConsumerConfig(properties), null, null, null, SystemTime.INSTANCE, null);
    }

    /** A consumer whose deserializers come from config. */
    public RaftlineConsumer(Map<String, Object> configs) {
        this(new ConsumerConfig(configs), null, null, null, SystemTime.INSTANCE, null);
    }

    /** A consumer with the given deserializers. */
    public RaftlineConsumer(Properties properties, Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer) {
        this(new ConsumerConfig(properties), keyDeserializer, valueDeserializer, null, SystemTime.INSTANCE, null);
    }

    /** A consumer with the given deserializers. */
    public RaftlineConsumer(Map<String, Object> configs, Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer) {
        this(new ConsumerConfig(configs), keyDeserializer, valueDeserializer, null, SystemTime.INSTANCE, null);
    }

    /** A consumer that records its metrics in {@code registry}. */
    public RaftlineConsumer(Map<String, Object> configs, Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer,
                            MeterRegistry registry) {
        this(new ConsumerConfig(configs), keyDeserializer, valueDeserializer, registry, SystemTime.INSTANCE, null);
    }

    /**
     * The full constructor: deserializers (null: from config), metrics registry (may be null), clock, and the group
     * membership (null: none; group operations then refuse).
     */
    @SuppressWarnings("this-escape")
    public RaftlineConsumer(ConsumerConfig config, Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer,
                            MeterRegistry registry, Time time, GroupMembership group) {
        this.config = config;
        this.time = time;
        this.meters = new ClientMeters(registry);
        registry = meters.registry();
        String id = config.getString(ConsumerConfig.CLIENT_ID_CONFIG);
        this.clientId = id.isEmpty() ? "consumer-" + Integer.toHexString(System.identityHashCode(this)) : id;
        Map<String, Object> originals = config.originals();
        this.keyDeserializer = deserializer(keyDeserializer, ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, originals, true);
        this.valueDeserializer = deserializer(valueDeserializer, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, originals, false);
        @SuppressWarnings("unchecked")
        List<ConsumerInterceptor<K, V>> ics = (List<ConsumerInterceptor<K, V>>) (List<?>) config.getConfiguredInstances(
            ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, ConsumerInterceptor.class);
        ics.forEach(i -> i.configure(originals));
        this.interceptors = List.copyOf(ics);
        this.maxPollRecords = config.getInt(ConsumerConfig.MAX_POLL_RECORDS_CONFIG);
        this.defaultApiTimeoutMs = config.getInt(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG);
        this.requestTimeoutMs = config.getInt(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG);
        long backoffMs = config.getLong(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG);
        int fetchMaxBytes = config.getInt(ConsumerConfig.FETCH_MAX_BYTES_CONFIG);
        int partitionMaxBytes = config.getInt(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG);
        // A response may exceed fetch.max.bytes by one batch (the first is always returned whole): leave headroom.
        long inbound = (long) Math.max(fetchMaxBytes, partitionMaxBytes) + 16L * 1024 * 1024;
        this.pool = new ConnectionPool(clientId, (int) Math.min(Integer.MAX_VALUE, inbound), new RequestMetrics(registry, clientId, time),
            ClientSecurity.from(config));
        this.metadata = new Metadata(Metadata.parseBootstrap(config.getList(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)), pool, time,
            ExponentialBackoff.ofClient(backoffMs, config.getLong(CommonClientConfigs.RETRY_BACKOFF_MAX_MS_CONFIG)),
            () -> ThreadLocalRandom.current().nextDouble(), config.getLong("metadata.max.age.ms"), requestTimeoutMs);
        this.subscriptions = new SubscriptionState(
            OffsetResetStrategy.forConfig(config.getString(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG)));
        this.offsetFetcher = new OffsetFetcher(metadata, pool, time, backoffMs, requestTimeoutMs);
        this.fetcher = new Fetcher<>(new Fetcher.Settings(config.getInt(ConsumerConfig.FETCH_MIN_BYTES_CONFIG),
            config.getInt(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), fetchMaxBytes, partitionMaxBytes,
            config.getBoolean(ConsumerConfig.CHECK_CRCS_CONFIG), requestTimeoutMs,
            config.getLong(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG), config.getLong(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG)),
            time,
            () -> ThreadLocalRandom.current().nextDouble(), metadata, pool, subscriptions, this.keyDeserializer,
            this.valueDeserializer);
        if (group == null && config.getString(ConsumerConfig.GROUP_ID_CONFIG) != null) {
            String instanceId = config.getString(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
            if (instanceId != null) {
                throw new ConfigException(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId,
                    "static group membership is not supported; leave it unset");
            }
            if (config.getString(ConsumerConfig.GROUP_ID_CONFIG).isEmpty()) {
                throw new ConfigException(ConsumerConfig.GROUP_ID_CONFIG, "", "must not be empty");
            }
            this.group = new CoordinatorGroupMembership(config, clientId, subscriptions, metadata, fetcher::clearBufferedFor,
                this::onCommit, time);
        } else {
            this.group = group;
        }
        this.metrics = new ConsumerMetrics(registry, clientId);
    }

    private static <T> Deserializer<T> deserializer(Deserializer<T> given, String key, Map<String, Object> originals, boolean isKey) {
        if (given != null) {
            return given;
        }
        Object value = originals.get(key);
        if (value == null) {
            throw new ConfigException("Missing required configuration '" + key + "' which has no default value"
                + " (or pass a Deserializer to the constructor)");
        }
        try {
            Class<?> cls = value instanceof Class<?> c ? c
                : Class.forName(value.toString().trim(), true, Thread.currentThread().getContextClassLoader());
            if (!Deserializer.class.isAssignableFrom(cls)) {
                throw new ConfigException(key, cls.getName(), "is not a " + Deserializer.class.getName());
            }
            @SuppressWarnings("unchecked")
            Deserializer<T> d = (Deserializer<T>) cls.getDeclaredConstructor().newInstance();
            d.configure(originals, isKey);
            return d;
        } catch (ReflectiveOperationException e) {
            throw new ConfigException(key, value, "cannot be instantiated: " + e);
        }
    }

    private static IllegalStateException requiresGroup(String operation) {
        return new IllegalStateException(operation + " requires group.id: set group.id to use a consumer group and commit "
            + "offsets (or use assign() and seek() without one)");
    }

    // ---- threading ----

    private void acquire() {
        if (closed) {
            throw new IllegalStateException("This consumer has already been closed.");
        }
        long me = Thread.currentThread().getId();
        if (me != currentThread.get() && !currentThread.compareAndSet(NO_THREAD, me)) {
            throw new ConcurrentModificationException("RaftlineConsumer is not safe for multi-threaded access");
        }
    }

    private void release() {
        currentThread.set(NO_THREAD);
    }

    private void maybeTriggerWakeup() {
        if (wakeupRequested.compareAndSet(true, false)) {
            throw new WakeupException();
        }
    }

    // ---- assignment ----

    @Override
    public void assign(Collection<TopicPartition> partitions) {
        acquire();
        try {
            for (TopicPartition tp : partitions) {
                if (tp == null || tp.topic().isBlank()) {
                    throw new IllegalArgumentException("Topic partitions to assign to cannot have null or empty topic");
                }
            }
            Set<TopicPartition> dropped = new HashSet<>(subscriptions.assignedPartitions());
            dropped.removeAll(partitions);
            fetcher.clearBufferedFor(dropped);
            subscriptions.assignFromUser(partitions);
            if (group != null) {
                // As in Kafka: with a group.id, a manually assigned partition starts at the group's committed offset;
                // auto.offset.reset applies only where there is none (the group's poll looks them up).
                partitions.forEach(subscriptions::awaitCommitted);
            }
            Set<String> topics = new HashSet<>();
            partitions.forEach(tp -> topics.add(tp.topic()));
            metadata.addTopics(topics);
        } finally {
            release();
        }
    }

    @Override
    public Set<TopicPartition> assignment() {
        return subscriptions.assignedPartitions();
    }

    @Override
    public void subscribe(Collection<String> topics) {
        subscribe(topics, null);
    }

    @Override
    public void subscribe(Collection<String> topics, ConsumerRebalanceListener listener) {
        acquire();
        try {
            if (topics == null) {
                throw new IllegalArgumentException("Topic collection to subscribe to cannot be null");
            }
            if (topics.isEmpty()) {
                unsubscribeHeld();
                return;
            }
            for (String t : topics) {
                if (t == null || t.isBlank()) {
                    throw new IllegalArgumentException("Topic collection to subscribe to cannot contain null or empty topic");
                }
            }
            if (group == null) {
                throw requiresGroup("subscribe");
            }
            subscriptions.subscribe(new HashSet<>(topics), listener);
            metadata.addTopics(topics);
        } finally {
            release();
        }
    }

    @Override
    public void subscribe(Pattern pattern) {
        subscribe(pattern, null);
    }

    @Override
    public void subscribe(Pattern pattern, ConsumerRebalanceListener listener) {
        acquire();
        try {
            if (pattern == null || pattern.pattern().isEmpty()) {
                throw new IllegalArgumentException("Topic pattern to subscribe to cannot be " + (pattern == null ? "null" : "empty"));
            }
            if (group == null) {
                throw requiresGroup("subscribe");
            }
            subscriptions.subscribe(pattern, listener);
            metadata.setAllTopics(true);
        } finally {
            release();
        }
    }

    @Override
    public Set<String> subscription() {
        return subscriptions.subscription();
    }

    @Override
    public void unsubscribe() {
        acquire();
        try {
            unsubscribeHeld();
        } finally {
            release();
        }
    }

    /** Leaves the group (revoking through the listener) and drops the subscription; the caller holds the consumer. */
    private void unsubscribeHeld() {
        if (group != null && (subscriptions.type() == SubscriptionState.Type.AUTO_TOPICS
            || subscriptions.type() == SubscriptionState.Type.AUTO_PATTERN)) {
            group.leave();
        }
        fetcher.clearBufferedFor(subscriptions.assignedPartitions());
        subscriptions.unsubscribe();
    }

    // ---- poll ----

    @Override
    public ConsumerRecords<K, V> poll(Duration timeout) {
        acquire();
        try {
            if (subscriptions.type() == SubscriptionState.Type.NONE) {
                throw new IllegalStateException("Consumer is not subscribed to any topics or assigned any partitions");
            }
            long deadline = time.hiResMilliseconds() + Math.max(0, timeout.toMillis());
            do {
                maybeTriggerWakeup();
                long now = time.hiResMilliseconds();
                if (group != null) {
                    group.poll(now, deadline);
                }
                metadata.maybeRefresh();
                try {
                    updateFetchPositions(Math.max(deadline, now + 100));
                } catch (TimeoutException e) {
                    LOG.debug("Positions not reset yet: {}", e.getMessage());
                }
                Map<TopicPartition, List<ConsumerRecord<K, V>>> records = fetcher.collect(maxPollRecords);
                if (!records.isEmpty()) {
                    // Prefetch: the next fetch travels while the application handles these records.
                    fetcher.sendFetches();
                    ConsumerRecords<K, V> result = new ConsumerRecords<>(records);
                    metrics.recordsConsumed(result.count());
                    metrics.updateLags(subscriptions);
                    return onConsume(result);
                }
                fetcher.sendFetches();
                if (fetcher.hasAvailable()) {
                    continue;
                }
                long waitMs = deadline - time.hiResMilliseconds();
                if (waitMs > 0) {
                    fetcher.await(Math.min(waitMs, Math.max(1, config.getLong(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG))));
                }
            } while (time.hiResMilliseconds() < deadline);
            metrics.updateLags(subscriptions);
            return ConsumerRecords.empty();
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        } finally {
            release();
        }
    }

    private ConsumerRecords<K, V> onConsume(ConsumerRecords<K, V> records) {
        ConsumerRecords<K, V> r = records;
        for (ConsumerInterceptor<K, V> i : interceptors) {
            try {
                r = i.onConsume(r);
            } catch (RuntimeException e) {
                LOG.warn("Error executing interceptor onConsume callback", e);
            }
        }
        return r;
    }

    /** Finds positions for partitions that have none (or asked for a reset), by auto.offset.reset or seekTo*. */
    private void updateFetchPositions(long deadlineMs) {
        List<TopicPartition> needing = subscriptions.partitionsNeedingReset();
        if (needing.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> query = new LinkedHashMap<>();
        Set<TopicPartition> undefined = new HashSet<>();
        for (TopicPartition tp : needing) {
            OffsetResetStrategy strategy = subscriptions.resetStrategy(tp);
            if (strategy == OffsetResetStrategy.NONE) {
                undefined.add(tp);
            } else {
                query.put(tp, strategy == OffsetResetStrategy.EARLIEST ? OffsetFetcher.EARLIEST : OffsetFetcher.LATEST);
            }
        }
        if (!undefined.isEmpty()) {
            throw new NoOffsetForPartitionException("Undefined offset with no reset policy for partitions: " + undefined);
        }
        Map<TopicPartition, OffsetFetcher.Result> found = offsetFetcher.listOffsets(query, deadlineMs);
        found.forEach((tp, r) -> {
            if (subscriptions.isAssigned(tp)) {
                subscriptions.seek(tp, r.offset(), r.leaderEpoch() < 0 ? null : r.leaderEpoch());
            }
        });
        fetcher.clearBufferedFor(found.keySet());
    }

    // ---- commits (need a group) ----

    @Override
    public void commitSync() {
        commitSync(Duration.ofMillis(defaultApiTimeoutMs));
    }

    @Override
    public void commitSync(Duration timeout) {
        commitSync(currentPositions(), timeout);
    }

    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        commitSync(offsets, Duration.ofMillis(defaultApiTimeoutMs));
    }

    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        acquire();
        try {
            if (group == null) {
                throw requiresGroup("commitSync");
            }
            // The membership tells the interceptors (onCommit) once the coordinator has the offsets.
            group.commit(offsets).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        } catch (ExecutionException e) {
            throw GrpcErrors.toException(e, "group coordinator");
        } catch (java.util.concurrent.TimeoutException e) {
            throw new TimeoutException("Commit did not complete within " + timeout.toMillis() + " ms");
        } finally {
            release();
        }
    }

    @Override
    public void commitAsync() {
        commitAsync(null);
    }

    @Override
    public void commitAsync(OffsetCommitCallback callback) {
        commitAsync(currentPositions(), callback);
    }

    @Override
    public void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        acquire();
        try {
            if (group == null) {
                throw requiresGroup("commitAsync");
            }
            group.commit(offsets).whenComplete((v, e) -> {
                Exception error = e == null ? null : GrpcErrors.toException(e, "group coordinator");
                if (callback != null) {
                    callback.onComplete(offsets, error);
                }
            });
        } finally {
            release();
        }
    }

    private void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        for (ConsumerInterceptor<K, V> i : interceptors) {
            try {
                i.onCommit(offsets);
            } catch (RuntimeException e) {
                LOG.warn("Error executing interceptor onCommit callback", e);
            }
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> currentPositions() {
        Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
        for (TopicPartition tp : subscriptions.assignedPartitions()) {
            Long p = subscriptions.position(tp);
            if (p != null) {
                out.put(tp, new OffsetAndMetadata(p));
            }
        }
        return out;
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
        acquire();
        try {
            if (group == null) {
                throw requiresGroup("committed");
            }
            Map<TopicPartition, OffsetAndMetadata> found = group.fetchCommitted(partitions,
                time.hiResMilliseconds() + defaultApiTimeoutMs);
            // As in Kafka: every partition asked about is a key, null when the group has no offset for it.
            Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
            partitions.forEach(tp -> out.put(tp, found.get(tp)));
            return out;
        } finally {
            release();
        }
    }

    // ---- positions ----

    @Override
    public void seek(TopicPartition partition, long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("seek offset must not be a negative number");
        }
        acquire();
        try {
            subscriptions.seek(partition, offset, null);
            fetcher.clearBufferedFor(Set.of(partition));
        } finally {
            release();
        }
    }

    @Override
    public void seek(TopicPartition partition, OffsetAndMetadata offsetAndMetadata) {
        seek(partition, offsetAndMetadata.offset());
    }

    @Override
    public void seekToBeginning(Collection<TopicPartition> partitions) {
        seekTo(partitions, OffsetResetStrategy.EARLIEST);
    }

    @Override
    public void seekToEnd(Collection<TopicPartition> partitions) {
        seekTo(partitions, OffsetResetStrategy.LATEST);
    }

    private void seekTo(Collection<TopicPartition> partitions, OffsetResetStrategy strategy) {
        acquire();
        try {
            Collection<TopicPartition> targets = partitions.isEmpty() ? subscriptions.assignedPartitions() : partitions;
            for (TopicPartition tp : targets) {
                subscriptions.requestReset(tp, strategy);
            }
            fetcher.clearBufferedFor(new HashSet<>(targets));
        } finally {
            release();
        }
    }

    @Override
    public long position(TopicPartition partition) {
        return position(partition, Duration.ofMillis(defaultApiTimeoutMs));
    }

    @Override
    public long position(TopicPartition partition, Duration timeout) {
        acquire();
        try {
            if (!subscriptions.isAssigned(partition)) {
                throw new IllegalStateException("You can only check the position for partitions assigned to this consumer.");
            }
            long deadline = time.hiResMilliseconds() + timeout.toMillis();
            while (subscriptions.partitionsAwaitingCommitted().contains(partition)
                || subscriptions.partitionsNeedingReset().contains(partition)) {
                maybeTriggerWakeup();
                if (group != null && subscriptions.partitionsAwaitingCommitted().contains(partition)) {
                    positionFromCommitted(partition, deadline);
                } else {
                    updateFetchPositions(deadline);
                }
            }
            return subscriptions.position(partition);
        } finally {
            release();
        }
    }

    /** Sets the position of a partition awaiting the group's committed offset; none committed: auto.offset.reset applies. */
    private void positionFromCommitted(TopicPartition tp, long deadlineMs) {
        OffsetAndMetadata committed = group.fetchCommitted(Set.of(tp), deadlineMs).get(tp);
        if (committed == null) {
            subscriptions.committedNotFound(tp);
        } else {
            subscriptions.seek(tp, committed.offset(), committed.leaderEpoch().orElse(null));
        }
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
        return listOffsets(partitions, OffsetFetcher.EARLIEST);
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        return listOffsets(partitions, OffsetFetcher.LATEST);
    }

    private Map<TopicPartition, Long> listOffsets(Collection<TopicPartition> partitions, long which) {
        acquire();
        try {
            Map<TopicPartition, Long> query = new LinkedHashMap<>();
            partitions.forEach(tp -> query.put(tp, which));
            Map<TopicPartition, Long> out = new LinkedHashMap<>();
            offsetFetcher.listOffsets(query, time.hiResMilliseconds() + defaultApiTimeoutMs).forEach((tp, r) -> out.put(tp, r.offset()));
            return out;
        } finally {
            release();
        }
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestampsToSearch) {
        acquire();
        try {
            timestampsToSearch.forEach((tp, ts) -> {
                if (ts < 0) {
                    throw new IllegalArgumentException("The target time for partition " + tp + " is " + ts
                        + ". The target time cannot be negative.");
                }
            });
            Map<TopicPartition, OffsetAndTimestamp> out = new HashMap<>();
            offsetFetcher.listOffsets(timestampsToSearch, time.hiResMilliseconds() + defaultApiTimeoutMs).forEach((tp, r) ->
                out.put(tp, r.offset() < 0 ? null : new OffsetAndTimestamp(r.offset(), r.timestamp(),
                    r.leaderEpoch() < 0 ? java.util.Optional.empty() : java.util.Optional.of(r.leaderEpoch()))));
            return out;
        } finally {
            release();
        }
    }

    @Override
    public void pause(Collection<TopicPartition> partitions) {
        acquire();
        try {
            partitions.forEach(subscriptions::pause);
        } finally {
            release();
        }
    }

    @Override
    public void resume(Collection<TopicPartition> partitions) {
        acquire();
        try {
            partitions.forEach(subscriptions::resume);
        } finally {
            release();
        }
    }

    @Override
    public Set<TopicPartition> paused() {
        return subscriptions.pausedPartitions();
    }

    // ---- metadata ----

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        acquire();
        try {
            // Retries failed refreshes every retry.backoff.ms until default.api.timeout.ms; empty if the topic does not exist.
            return metadata.fetchTopic(topic, time.hiResMilliseconds() + defaultApiTimeoutMs);
        } finally {
            release();
        }
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics() {
        acquire();
        try {
            // Retries a failed or late request on another broker every retry.backoff.ms until default.api.timeout.ms.
            Cluster cluster = metadata.fetchAllTopics(time.hiResMilliseconds() + defaultApiTimeoutMs);
            Map<String, List<PartitionInfo>> out = new HashMap<>();
            for (String t : cluster.topics()) {
                out.put(t, cluster.partitionsForTopic(t));
            }
            return out;
        } finally {
            release();
        }
    }

    // ---- lifecycle ----

    @Override
    public void wakeup() {
        wakeupRequested.set(true);
        fetcher.wakeup();
        if (group != null) {
            group.wakeup();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }

    @Override
    public Map<MetricName, Double> metrics() {
        return meters.snapshot();
    }

    @Override
    public void close(Duration timeout) {
        if (closed) {
            return;
        }
        acquire();
        try {
            // Leave the group while still open: the listener's onPartitionsRevoked may commit through this consumer.
            if (group != null) {
                group.close();
            }
        } finally {
            closed = true;
            // the brokers free this consumer's fetch sessions at once (bounded: a dead broker ages them out itself)
            try {
                fetcher.close(Math.min(Math.max(0, timeout.toMillis()),
                    requestTimeoutMs));
            } catch (RuntimeException e) {
                LOG.debug("closing fetch sessions failed: {}", e.toString());
            }
            try {
                interceptors.forEach(ConsumerInterceptor::close);
                keyDeserializer.close();
                valueDeserializer.close();
                pool.close();
            } finally {
                release();
            }
        }
    }

    /** The id this consumer uses in logs and metrics. */
    public String clientId() {
        return clientId;
    }

    /** The parsed config. */
    public ConsumerConfig config() {
        return config;
    }
}
