package io.raftline.broker.kafka;

import io.raftline.metadata.image.ConfigResource;
import io.raftline.protocol.metadata.ConfigResourceType;
import java.util.List;
import java.util.Map;

/**
 * Kafka's client-quota entities as Raftline's quota resources: {@code user} is a USER resource, {@code client-id} a
 * CLIENT one, and Kafka's default entity (a null name) is {@code <default>}. Raftline keeps quotas per user or per
 * client id, so an entity naming both (or an {@code ip}) is refused.
 */
final class KafkaQuotaEntities {

    static final String USER = "user";
    static final String CLIENT_ID = "client-id";
    static final String DEFAULT = "<default>";

    /** DescribeClientQuotas' match types. */
    static final byte EXACT = 0;
    static final byte DEFAULT_MATCH = 1;
    static final byte SPECIFIED = 2;

    /** One component of a DescribeClientQuotas filter. */
    record Component(String entityType, byte matchType, String match) {
    }

    private KafkaQuotaEntities() {
    }

    /** The quota resource of an entity given as (entity type, name) pairs, the default's name being {@link #DEFAULT}. */
    static ConfigResource resource(List<Map.Entry<String, String>> entity) throws KafkaRefusal {
        if (entity.size() != 1) {
            throw new KafkaRefusal("a quota entity is one user or one client id (Raftline keeps no quotas per user and "
                + "client id together); got " + entity.size() + " parts");
        }
        Map.Entry<String, String> e = entity.get(0);
        return switch (e.getKey()) {
            case USER -> new ConfigResource(ConfigResourceType.USER, e.getValue());
            case CLIENT_ID -> new ConfigResource(ConfigResourceType.CLIENT, e.getValue());
            default -> throw new KafkaRefusal("quota entity type '" + e.getKey() + "' is not served: user or client-id");
        };
    }

    static String entityType(ConfigResource r) {
        return r.type() == ConfigResourceType.USER ? USER : CLIENT_ID;
    }

    /** Kafka's name of a quota resource: null for the default entity. */
    static String entityName(ConfigResource r) {
        return DEFAULT.equals(r.name()) ? null : r.name();
    }

    /**
     * Whether quota resource {@code r} matches DescribeClientQuotas' filter: every component must hold for it, and
     * with {@code strict} it may have no part the filter does not name. Resources that are not quotas never match.
     */
    static boolean matches(ConfigResource r, List<Component> components, boolean strict) {
        if (r.type() != ConfigResourceType.USER && r.type() != ConfigResourceType.CLIENT) {
            return false;
        }
        if (strict && components.size() != 1) {
            return false; // every Raftline quota entity has exactly one part
        }
        String type = entityType(r);
        for (Component c : components) {
            if (!type.equals(c.entityType())) {
                return false;
            }
            boolean isDefault = DEFAULT.equals(r.name());
            boolean ok = switch (c.matchType()) {
                case EXACT -> !isDefault && r.name().equals(c.match());
                case DEFAULT_MATCH -> isDefault;
                case SPECIFIED -> !isDefault;
                default -> false;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** A quota's value as Raftline's configs hold it: whole numbers without a fraction ("1048576", not "1048576.0"). */
    static String value(double v) {
        return v == Math.rint(v) && !Double.isInfinite(v) && Math.abs(v) < 1e18 ? Long.toString((long) v) : Double.toString(v);
    }
}
