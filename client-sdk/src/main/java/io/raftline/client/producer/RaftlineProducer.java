package io.raftline.client.producer;

import io.raftline.client.internals.net.ClientSecurity;
import io.micrometer.core.instrument.MeterRegistry;
import io.raftline.client.common.MetricName;
import io.raftline.client.internals.metrics.ClientMeters;
import io.raftline.client.common.Cluster;
import io.raftline.client.common.PartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.header.Header;
import io.raftline.client.common.header.Headers;
import io.raftline.client.common.serialization.Serializer;
import io.raftline.client.errors.ApiException;
import io.raftline.client.errors.ConfigException;
import io.raftline.client.errors.InterruptException;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.errors.RecordTooLargeException;
import io.raftline.client.errors.SerializationException;
import io.raftline.client.internals.metadata.Metadata;
import io.raftline.client.internals.net.ConnectionPool;
import io.raftline.client.internals.net.RequestMetrics;
import io.raftline.client.internals.producer.BufferPool;
import io.raftline.client.internals.producer.BuiltInPartitioner;
import io.raftline.client.internals.producer.FutureRecordMetadata;
import io.raftline.client.internals.producer.IdempotenceState;
import io.raftline.client.internals.producer.ProducerMetrics;
import io.raftline.client.internals.producer.RecordAccumulator;
import io.raftline.client.internals.producer.Sender;
import io.raftline.client.internals.retry.ExponentialBackoff;
import io.raftline.common.SystemTime;
import io.raftline.common.Time;
import io.raftline.record.CompressionType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Raftline producer, a drop-in for Kafka's {@code KafkaProducer}: {@code send} serializes the record, picks its
 * partition, and appends it to that partition's batch in the accumulator; a background I/O thread sends ready
 * batches, one request per broker, and completes the futures and callbacks. Idempotent by default: records of a
 * partition are written once and in order even when batches are retried. Thread-safe.
 *
 * <pre>{@code
 * Properties p = new Properties();
 * p.put("bootstrap.servers", "127.0.0.1:9092");
 * try (Producer<String, String> producer = new RaftlineProducer<>(p, new StringSerializer(), new StringSerializer())) {
 *     producer.send(new ProducerRecord<>("orders", "key", "value"), (md, e) -> { ... });
 * }
 * }</pre>
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public class RaftlineProducer<K, V> implements Producer<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(RaftlineProducer.class);

    private final ProducerConfig config;
    private final String clientId;
    private final Time time;
    private final Serializer<K> keySerializer;
    private final Serializer<V> valueSerializer;
    private final Partitioner partitioner;
    private final List<ProducerInterceptor<K, V>> interceptors;
    private final ConnectionPool pool;
    private final ClientMeters meters;
    private final Metadata metadata;
    private final RecordAccumulator accumulator;
    private final Sender sender;
    private final Thread ioThread;
    private final long maxBlockMs;
    private final int maxRequestSize;
    private volatile boolean closed;

    /** A producer whose serializers come from {@code key.serializer} and {@code value.serializer}. */
    public RaftlineProducer(Properties properties) {
        this(new ProducerConfig(properties), null, null, null, SystemTime.INSTANCE);
    }

    /** A producer whose serializers come from config. */
    public RaftlineProducer(Map<String, Object> configs) {
        this(new ProducerConfig(configs), null, null, null, SystemTime.INSTANCE);
    }

    /** A producer with the given serializers. */
    public RaftlineProducer(Properties properties, Serializer<K> keySerializer, Serializer<V> valueSerializer) {
        this(new ProducerConfig(properties), keySerializer, valueSerializer, null, SystemTime.INSTANCE);
    }

    /** A producer with the given serializers. */
    public RaftlineProducer(Map<String, Object> configs, Serializer<K> keySerializer, Serializer<V> valueSerializer) {
        this(new ProducerConfig(configs), keySerializer, valueSerializer, null, SystemTime.INSTANCE);
    }

    /** A producer that records its metrics in {@code registry}. */
    public RaftlineProducer(Map<String, Object> configs, Serializer<K> keySerializer, Serializer<V> valueSerializer,
                            MeterRegistry registry) {
        this(new ProducerConfig(configs), keySerializer, valueSerializer, registry, SystemTime.INSTANCE);
    }

    /** The full constructor: config, serializers (null: from config), metrics registry (may be null), clock. */
    @SuppressWarnings("this-escape")
    public RaftlineProducer(ProducerConfig config, Serializer<K> keySerializer, Serializer<V> valueSerializer, MeterRegistry registry,
                            Time time) {
        this.config = config;
        this.time = time;
        this.meters = new ClientMeters(registry);
        registry = meters.registry();
        String id = config.getString(ProducerConfig.CLIENT_ID_CONFIG);
        this.clientId = id.isEmpty() ? "producer-" + Integer.toHexString(System.identityHashCode(this)) : id;
        Map<String, Object> originals = config.originals();
        this.keySerializer = serializer(keySerializer, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, originals, true);
        this.valueSerializer = serializer(valueSerializer, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, originals, false);
        Partitioner custom = config.getConfiguredInstance(ProducerConfig.PARTITIONER_CLASS_CONFIG, Partitioner.class);
        this.partitioner = custom != null ? custom : new BuiltInPartitioner(config.getInt(ProducerConfig.BATCH_SIZE_CONFIG),
            config.getBoolean(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG), new SplittableRandom());
        partitioner.configure(originals);
        @SuppressWarnings("unchecked")
        List<ProducerInterceptor<K, V>> ics = (List<ProducerInterceptor<K, V>>) (List<?>) config.getConfiguredInstances(
            ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, ProducerInterceptor.class);
        ics.forEach(i -> i.configure(originals));
        this.interceptors = List.copyOf(ics);
        this.maxBlockMs = config.getLong(ProducerConfig.MAX_BLOCK_MS_CONFIG);
        this.maxRequestSize = config.getInt(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        int requestTimeoutMs = config.getInt(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG);
        long backoffMs = config.getLong(ProducerConfig.RETRY_BACKOFF_MS_CONFIG);
        this.pool = new ConnectionPool(clientId, 16 * 1024 * 1024, new RequestMetrics(registry, clientId, time),
            ClientSecurity.from(config));
        this.metadata = new Metadata(Metadata.parseBootstrap(config.getList(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)), pool, time,
            ExponentialBackoff.ofClient(backoffMs, config.getLong(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG)),
            () -> ThreadLocalRandom.current().nextDouble(), config.getLong(ProducerConfig.METADATA_MAX_AGE_MS_CONFIG),
            requestTimeoutMs);
        this.accumulator = new RecordAccumulator(config.getInt(ProducerConfig.BATCH_SIZE_CONFIG),
            config.getLong(ProducerConfig.LINGER_MS_CONFIG), backoffMs,
            CompressionType.forName(config.getString(ProducerConfig.COMPRESSION_TYPE_CONFIG)),
            new BufferPool(config.getLong(ProducerConfig.BUFFER_MEMORY_CONFIG), config.getInt(ProducerConfig.BATCH_SIZE_CONFIG)));
        Sender.Settings settings = new Sender.Settings(config.acks(), maxRequestSize,
            config.getInt(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION), config.getInt(ProducerConfig.RETRIES_CONFIG), backoffMs,
            requestTimeoutMs, config.getInt(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG));
        this.sender = new Sender(settings, metadata, pool, accumulator, config.idempotenceEnabled() ? new IdempotenceState() : null,
            time, new ProducerMetrics(registry, clientId));
        this.ioThread = new Thread(sender, "raftline-producer-network-thread | " + clientId);
        ioThread.setDaemon(true);
        ioThread.start();
    }

    private static <T> Serializer<T> serializer(Serializer<T> given, String key, Map<String, Object> originals, boolean isKey) {
        if (given != null) {
            return given;
        }
        Object value = originals.get(key);
        if (value == null) {
            throw new ConfigException("Missing required configuration '" + key + "' which has no default value"
                + " (or pass a Serializer to the constructor)");
        }
        Class<?> cls = value instanceof Class<?> c ? c : loadClass(key, value.toString());
        if (!Serializer.class.isAssignableFrom(cls)) {
            throw new ConfigException(key, cls.getName(), "is not a " + Serializer.class.getName());
        }
        try {
            @SuppressWarnings("unchecked")
            Serializer<T> s = (Serializer<T>) cls.getDeclaredConstructor().newInstance();
            s.configure(originals, isKey);
            return s;
        } catch (ReflectiveOperationException e) {
            throw new ConfigException(key, cls.getName(), "cannot be instantiated: " + e);
        }
    }

    private static Class<?> loadClass(String key, String name) {
        try {
            return Class.forName(name.trim(), true, Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException e) {
            throw new ConfigException(key, name, "class not found");
        }
    }

    /** The id this producer uses in logs, metrics and thread names. */
    public String clientId() {
        return clientId;
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<K, V> record) {
        return send(record, null);
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<K, V> record, Callback callback) {
        ProducerRecord<K, V> intercepted = onSend(record);
        TopicPartition tp = null;
        try {
            if (closed) {
                throw new IllegalStateException("Cannot perform operation after producer has been closed");
            }
            long deadline = time.hiResMilliseconds() + maxBlockMs;
            Cluster cluster = metadata.awaitTopic(intercepted.topic(), deadline);
            byte[] keyBytes = serialize(keySerializer, intercepted, intercepted.key(), "key");
            byte[] valueBytes = serialize(valueSerializer, intercepted, intercepted.value(), "value");
            int partition = partition(intercepted, keyBytes, valueBytes, cluster);
            tp = new TopicPartition(intercepted.topic(), partition);
            intercepted.headers().setReadOnly();
            io.raftline.record.Header[] headers = toWire(intercepted.headers());
            int size = RecordAccumulator.estimateSizeAlone(keyBytes, valueBytes, headers);
            if (size > maxRequestSize) {
                throw new RecordTooLargeException("The message is " + size + " bytes when serialized which is larger than "
                    + maxRequestSize + ", which is the value of the max.request.size configuration.");
            }
            long timestamp = intercepted.timestamp() != null ? intercepted.timestamp() : time.milliseconds();
            Callback chained = chain(callback, tp);
            long remaining = Math.max(0, deadline - time.hiResMilliseconds());
            RecordAccumulator.AppendResult result = accumulator.append(tp, timestamp, keyBytes, valueBytes, headers, chained, remaining,
                time.hiResMilliseconds());
            if (result.batchIsFull() || result.newBatchCreated()) {
                sender.wakeup();
            }
            return new FutureRecordMetadata(result.future());
        } catch (ApiException | SerializationException e) {
            // Like Kafka: an error before the record is buffered goes to the callback and the future, not to the caller.
            RecordMetadata md = new RecordMetadata(tp != null ? tp : new TopicPartition(intercepted.topic(),
                intercepted.partition() == null ? -1 : intercepted.partition()), RecordMetadata.UNKNOWN_OFFSET, -1, -1, -1);
            if (callback != null) {
                callback.onCompletion(md, e);
            }
            onAcknowledgement(md, e);
            return FutureRecordMetadata.failed(e);
        } catch (InterruptException e) {
            onAcknowledgement(null, e);
            throw e;
        } catch (RaftlineException | IllegalStateException e) {
            onAcknowledgement(null, e);
            throw e;
        }
    }

    private Callback chain(Callback user, TopicPartition tp) {
        if (interceptors.isEmpty()) {
            return user;
        }
        return (md, e) -> {
            onAcknowledgement(md, e);
            if (user != null) {
                user.onCompletion(md, e);
            }
        };
    }

    private ProducerRecord<K, V> onSend(ProducerRecord<K, V> record) {
        ProducerRecord<K, V> r = record;
        for (ProducerInterceptor<K, V> i : interceptors) {
            try {
                r = i.onSend(r);
            } catch (RuntimeException e) {
                LOG.warn("Error executing interceptor onSend callback", e);
            }
        }
        return r;
    }

    private void onAcknowledgement(RecordMetadata md, Exception e) {
        for (ProducerInterceptor<K, V> i : interceptors) {
            try {
                i.onAcknowledgement(md, e);
            } catch (RuntimeException ex) {
                LOG.warn("Error executing interceptor onAcknowledgement callback", ex);
            }
        }
    }

    private <T> byte[] serialize(Serializer<T> s, ProducerRecord<K, V> record, T data, String what) {
        try {
            return s.serialize(record.topic(), record.headers(), data);
        } catch (ClassCastException | SerializationException e) {
            throw new SerializationException("Can't serialize " + what + " of record for topic " + record.topic() + ": "
                + e.getMessage(), e);
        }
    }

    private int partition(ProducerRecord<K, V> record, byte[] keyBytes, byte[] valueBytes, Cluster cluster) {
        int count = cluster.partitionsForTopic(record.topic()).size();
        if (record.partition() != null) {
            if (record.partition() >= count) {
                throw new io.raftline.client.errors.UnknownTopicOrPartitionException("Partition " + record.partition()
                    + " of topic " + record.topic() + " with partition count " + count + " is not present in metadata");
            }
            return record.partition();
        }
        int p = partitioner.partition(record.topic(), record.key(), keyBytes, record.value(), valueBytes, cluster);
        if (p < 0 || p >= count) {
            throw new IllegalArgumentException("The partitioner returned partition " + p + " for topic " + record.topic()
                + " which has " + count + " partitions");
        }
        return p;
    }

    private static final io.raftline.record.Header[] NO_HEADERS = new io.raftline.record.Header[0];

    private static io.raftline.record.Header[] toWire(Headers headers) {
        int n = headers.size();
        if (n == 0) {
            // The common case allocates nothing here.
            return NO_HEADERS;
        }
        io.raftline.record.Header[] out = new io.raftline.record.Header[n];
        int i = 0;
        for (Header h : headers) {
            out[i++] = new io.raftline.record.Header(h.key(), h.value());
        }
        return out;
    }

    @Override
    public void flush() {
        accumulator.beginFlush();
        sender.wakeup();
        try {
            accumulator.awaitFlushCompletion();
        } catch (InterruptedException e) {
            throw new InterruptException("Flush interrupted.", e);
        }
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return metadata.awaitTopic(topic, time.hiResMilliseconds() + maxBlockMs).partitionsForTopic(topic);
    }

    @Override
    public void close() {
        close(Duration.ofMillis(Long.MAX_VALUE));
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
        closed = true;
        accumulator.close();
        sender.initiateClose();
        try {
            if (Thread.currentThread() != ioThread) {
                long waitMs = Math.min(timeout.toMillis(), Long.MAX_VALUE / 2);
                if (waitMs > 0) {
                    ioThread.join(waitMs);
                }
                if (ioThread.isAlive()) {
                    sender.forceClose();
                    ioThread.join(TimeUnit.SECONDS.toMillis(5));
                }
            }
        } catch (InterruptedException e) {
            sender.forceClose();
            Thread.currentThread().interrupt();
        }
        interceptors.forEach(ProducerInterceptor::close);
        partitioner.close();
        keySerializer.close();
        valueSerializer.close();
        pool.close();
    }

    /** The parsed config. */
    public ProducerConfig config() {
        return config;
    }
}
