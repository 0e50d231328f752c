package io.raftline.client.common.config;

import io.raftline.client.errors.ConfigException;
import io.raftline.common.config.ConfigDef;
import io.raftline.common.config.ConfigDef.UnknownKeys;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's parsed, validated configuration: built once at construction from the user's map, immutable after.
 * Subclasses hold the {@link ConfigDef} of one client kind and any cross-key checks.
 *
 * <p>As in kafka-clients, a key this client kind does not define is not an error: a properties file shared with
 * other tools holds keys for them (a schema registry's URL, a serializer's own settings). Such keys are logged once,
 * at construction, and stay in {@link #originals()}, which the client hands to its serializers, interceptors,
 * partitioner and assignors through their {@code configure(Map)}. A defined key with a bad value fails with one
 * {@link ConfigException} naming the key.
 */
public abstract class AbstractConfig {

    private static final Logger LOG = LoggerFactory.getLogger(AbstractConfig.class);

    private final Map<String, Object> originals;
    private final Map<String, Object> values;
    private final Set<String> unused;

    /** Parses {@code props} against {@code def}; fails with a {@link ConfigException} naming the key. */
    protected AbstractConfig(ConfigDef def, Map<?, ?> props) {
        Map<String, Object> copy = new LinkedHashMap<>();
        props.forEach((k, v) -> copy.put(String.valueOf(k), v));
        this.originals = Collections.unmodifiableMap(copy);
        ConfigDef.Parsed parsed = translated(() -> def.parse(props, UnknownKeys.KEEP));
        this.values = parsed.values();
        this.unused = parsed.unknown();
        if (!unused.isEmpty()) {
            LOG.warn("{} are not {} config keys: unused by the client itself, passed on to its serializers, "
                + "interceptors, partitioner and assignors", unused, kind());
        }
    }

    /** Runs a step of the shared config mechanism, raising its errors as the SDK's {@link ConfigException}. */
    private static <T> T translated(Supplier<T> step) {
        try {
            return step.get();
        } catch (io.raftline.common.config.ConfigException e) {
            throw new ConfigException(e.getMessage());
        }
    }

    /** "producer", "consumer", "admin client": the kind named in log lines. */
    private String kind() {
        String name = getClass().getSimpleName();
        return name.endsWith("Config") ? name.substring(0, name.length() - "Config".length()).toLowerCase(Locale.ROOT) : name;
    }

    /** The keys given that this client kind does not define (logged once at construction, kept in the originals). */
    public Set<String> unused() {
        return unused;
    }

    /** Turns {@link Properties} into a map. */
    protected static Map<String, Object> toMap(Properties props) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (String name : props.stringPropertyNames()) {
            map.put(name, props.getProperty(name));
        }
        // Properties may also hold typed values (a Class, an Integer) put with put(); keep them as they are.
        props.forEach((k, v) -> map.putIfAbsent(String.valueOf(k), v));
        return map;
    }

    /** The map the user passed, unchanged. */
    public Map<String, Object> originals() {
        return originals;
    }

    /** Every key with its parsed value (defaults filled in). */
    public Map<String, Object> values() {
        return values;
    }

    /** The parsed value of {@code key}. */
    public Object get(String key) {
        if (!values.containsKey(key)) {
            throw new ConfigException("unknown config key '" + key + "'");
        }
        return values.get(key);
    }

    /** An INT key. */
    public int getInt(String key) {
        return (Integer) get(key);
    }

    /** A LONG key. */
    public long getLong(String key) {
        return (Long) get(key);
    }

    /** A DOUBLE key. */
    public double getDouble(String key) {
        return (Double) get(key);
    }

    /** A BOOLEAN key. */
    public boolean getBoolean(String key) {
        return (Boolean) get(key);
    }

    /** A STRING key (may be null). */
    public String getString(String key) {
        return (String) get(key);
    }

    /** A LIST key. */
    @SuppressWarnings("unchecked")
    public List<String> getList(String key) {
        List<?> list = (List<?>) get(key);
        List<String> out = new ArrayList<>();
        for (Object o : list) {
            out.add(o instanceof Class<?> c ? c.getName() : String.valueOf(o));
        }
        return (List<String>) (List<?>) Collections.unmodifiableList(out);
    }

    /** A CLASS key (may be null). */
    public Class<?> getClass(String key) {
        return (Class<?>) get(key);
    }

    /**
     * A new instance of the class named by a CLASS key, checked against {@code type}; null when the key is unset.
     * The instance is not configured: the caller does that with the originals.
     */
    public <T> T getConfiguredInstance(String key, Class<T> type) {
        Class<?> c = getClass(key);
        return c == null ? null : newInstance(key, c, type);
    }

    /** New instances of every class in a LIST key, in order. */
    public <T> List<T> getConfiguredInstances(String key, Class<T> type) {
        List<T> out = new ArrayList<>();
        for (Object o : (List<?>) get(key)) {
            Class<?> c = o instanceof Class<?> k ? k : (Class<?>) translated(() -> ConfigDef.parseValue(key, o, ConfigDef.Type.CLASS));
            out.add(newInstance(key, c, type));
        }
        return out;
    }

    private static <T> T newInstance(String key, Class<?> c, Class<T> type) {
        if (!type.isAssignableFrom(c)) {
            throw new ConfigException(key, c.getName(), "is not a " + type.getName());
        }
        try {
            return type.cast(c.getDeclaredConstructor().newInstance());
        } catch (NoSuchMethodException | InstantiationException | IllegalAccessException e) {
            throw new ConfigException(key, c.getName(), "needs a public no-argument constructor");
        } catch (InvocationTargetException e) {
            throw new ConfigException(key, c.getName(), "its constructor threw " + e.getCause());
        }
    }
}
