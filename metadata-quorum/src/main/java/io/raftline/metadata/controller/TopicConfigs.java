package io.raftline.metadata.controller;

import io.raftline.common.config.TopicConfig;
import io.raftline.metadata.image.ConfigResource;
import io.raftline.metadata.image.MetadataImage;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The topic configs as the controller uses them: validation and broker-key mapping come from the one definition in
 * {@link TopicConfig} (which brokers parse their logs with too); a topic's effective value is its own override, else
 * the cluster-wide dynamic broker default (resource BROKER ""), else the static default from {@link ControllerConfig}.
 */
public final class TopicConfigs {

    public static final String MIN_INSYNC_REPLICAS = TopicConfig.MIN_INSYNC_REPLICAS;
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE;

    /** Kafka's defaults for every known topic config. */
    public static final Map<String, String> BUILT_IN_DEFAULTS = TopicConfig.BUILT_IN_DEFAULTS;

    private TopicConfigs() {
    }

    public static Set<String> names() {
        return TopicConfig.names();
    }

    public static boolean isKnown(String name) {
        return TopicConfig.isKnown(name);
    }

    /** The broker-level key a topic config overrides (e.g. retention.ms -> log.retention.ms). */
    public static String brokerKey(String topicConfigName) {
        return TopicConfig.brokerKey(topicConfigName);
    }

    /** The topic config a broker-level key sets the default of, if it is one. */
    public static Optional<String> topicNameOfBrokerKey(String brokerKey) {
        return TopicConfig.topicNameOfBrokerKey(brokerKey);
    }

    /** Empty when {@code value} is acceptable for topic config {@code name}; else why not, in one sentence. */
    public static Optional<String> validate(String name, String value) {
        return TopicConfig.problem(name, value);
    }

    /** A topic's effective value of a known config (override, dynamic cluster default, static default). */
    public static String effective(MetadataImage image, ControllerConfig config, String topic, String name) {
        String own = image.configs(ConfigResource.topic(topic)).get(name);
        if (own != null) {
            return own;
        }
        String brokerKey = brokerKey(name);
        String cluster = brokerKey == null ? null : image.configs(ConfigResource.broker("")).get(brokerKey);
        if (cluster != null) {
            return cluster;
        }
        return config.topicConfigDefaults().get(name);
    }

    public static int minInsyncReplicas(MetadataImage image, ControllerConfig config, String topic) {
        return Integer.parseInt(effective(image, config, topic, MIN_INSYNC_REPLICAS).trim());
    }

    public static boolean uncleanElection(MetadataImage image, ControllerConfig config, String topic) {
        return Boolean.parseBoolean(effective(image, config, topic, UNCLEAN_LEADER_ELECTION_ENABLE).trim());
    }
}
