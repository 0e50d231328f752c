package io.raftline.client.admin;

/**
 * What a config belongs to: a topic, or a broker (name = broker id; {@code ""} for the cluster-wide default).
 *
 * @param type the kind of resource
 * @param name the topic name or broker id
 */
public record ConfigResource(Type type, String name) {

    /** Kinds of config resources. */
    /** USER and CLIENT hold client quotas (a principal's name, a client.id; "<default>" for all others). */
    public enum Type { TOPIC, BROKER, USER, CLIENT }
}
