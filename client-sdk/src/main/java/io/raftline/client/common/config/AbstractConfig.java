package io.raftline.client.common.config;

import io.raftline.client.errors.ConfigException;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A client's parsed, validated configuration: built once at construction from the user's map, immutable after.
 * Subclasses hold the {@link ConfigDef} of one client kind and any cross-key checks.
 */
public abstract class AbstractConfig {

    private final Map<String, Object> originals;
    private final Map<String, Object> values;

    /** Parses {@code props} against {@code def}; fails with a {@link ConfigException} naming the key. */
    protected AbstractConfig(ConfigDef def, Map<?, ?> props) {
        Map<String, Object> copy = new LinkedHashMap<>();
        props.forEach((k, v) -> copy.put(String.valueOf(k), v));
        this.originals = Collections.unmodifiableMap(copy);
        this.values = Collections.unmodifiableMap(def.parse(props));
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
            throw new ConfigException("Unknown configuration '" + key + "'");
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
            Class<?> c = o instanceof Class<?> k ? k : (Class<?>) ConfigDef.parseType(key, o, ConfigDef.Type.CLASS);
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
