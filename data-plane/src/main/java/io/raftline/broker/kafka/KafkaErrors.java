package io.raftline.broker.kafka;

import io.raftline.protocol.ErrorCode;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;

/**
 * Raftline's error codes as Kafka's: the one table the Kafka listener answers with. Each code maps to the Kafka error
 * of the same meaning, so a Kafka client retries exactly what a Raftline client retries. One code has no Kafka twin:
 * {@code FENCED_BROKER} (broker-to-controller only, never sent to a client) becomes {@code BROKER_NOT_AVAILABLE}.
 */
public final class KafkaErrors {

    private static final Map<ErrorCode, Errors> TABLE = new EnumMap<>(ErrorCode.class);

    static {
        TABLE.put(ErrorCode.NONE, Errors.NONE);
        TABLE.put(ErrorCode.UNKNOWN, Errors.UNKNOWN_SERVER_ERROR);
        TABLE.put(ErrorCode.CORRUPT_MESSAGE, Errors.CORRUPT_MESSAGE);
        TABLE.put(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, Errors.UNKNOWN_TOPIC_OR_PARTITION);
        TABLE.put(ErrorCode.INVALID_TOPIC, Errors.INVALID_TOPIC_EXCEPTION);
        TABLE.put(ErrorCode.TOPIC_ALREADY_EXISTS, Errors.TOPIC_ALREADY_EXISTS);
        TABLE.put(ErrorCode.INVALID_PARTITIONS, Errors.INVALID_PARTITIONS);
        TABLE.put(ErrorCode.INVALID_REPLICATION_FACTOR, Errors.INVALID_REPLICATION_FACTOR);
        TABLE.put(ErrorCode.INVALID_CONFIG, Errors.INVALID_CONFIG);
        TABLE.put(ErrorCode.NOT_LEADER, Errors.NOT_LEADER_OR_FOLLOWER);
        TABLE.put(ErrorCode.LEADER_NOT_AVAILABLE, Errors.LEADER_NOT_AVAILABLE);
        TABLE.put(ErrorCode.NOT_CONTROLLER, Errors.NOT_CONTROLLER);
        TABLE.put(ErrorCode.NOT_ENOUGH_REPLICAS, Errors.NOT_ENOUGH_REPLICAS);
        TABLE.put(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        TABLE.put(ErrorCode.MESSAGE_TOO_LARGE, Errors.MESSAGE_TOO_LARGE);
        TABLE.put(ErrorCode.UNSUPPORTED_FORMAT, Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT);
        TABLE.put(ErrorCode.OFFSET_OUT_OF_RANGE, Errors.OFFSET_OUT_OF_RANGE);
        TABLE.put(ErrorCode.FENCED_LEADER_EPOCH, Errors.FENCED_LEADER_EPOCH);
        TABLE.put(ErrorCode.UNKNOWN_LEADER_EPOCH, Errors.UNKNOWN_LEADER_EPOCH);
        TABLE.put(ErrorCode.STALE_BROKER_EPOCH, Errors.STALE_BROKER_EPOCH);
        TABLE.put(ErrorCode.REQUEST_TIMED_OUT, Errors.REQUEST_TIMED_OUT);
        TABLE.put(ErrorCode.OUT_OF_ORDER_SEQUENCE, Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        TABLE.put(ErrorCode.DUPLICATE_SEQUENCE, Errors.DUPLICATE_SEQUENCE_NUMBER);
        TABLE.put(ErrorCode.INVALID_PRODUCER_EPOCH, Errors.INVALID_PRODUCER_EPOCH);
        TABLE.put(ErrorCode.UNKNOWN_PRODUCER_ID, Errors.UNKNOWN_PRODUCER_ID);
        TABLE.put(ErrorCode.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_NOT_AVAILABLE);
        TABLE.put(ErrorCode.NOT_COORDINATOR, Errors.NOT_COORDINATOR);
        TABLE.put(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, Errors.COORDINATOR_LOAD_IN_PROGRESS);
        TABLE.put(ErrorCode.ILLEGAL_GENERATION, Errors.ILLEGAL_GENERATION);
        TABLE.put(ErrorCode.UNKNOWN_MEMBER_ID, Errors.UNKNOWN_MEMBER_ID);
        TABLE.put(ErrorCode.REBALANCE_IN_PROGRESS, Errors.REBALANCE_IN_PROGRESS);
        TABLE.put(ErrorCode.GROUP_ID_NOT_FOUND, Errors.GROUP_ID_NOT_FOUND);
        TABLE.put(ErrorCode.NON_EMPTY_GROUP, Errors.NON_EMPTY_GROUP);
        TABLE.put(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, Errors.INCONSISTENT_GROUP_PROTOCOL);
        TABLE.put(ErrorCode.INVALID_REQUEST, Errors.INVALID_REQUEST);
        TABLE.put(ErrorCode.STORAGE_ERROR, Errors.KAFKA_STORAGE_ERROR);
        TABLE.put(ErrorCode.BROKER_NOT_AVAILABLE, Errors.BROKER_NOT_AVAILABLE);
        TABLE.put(ErrorCode.INVALID_REPLICA_ASSIGNMENT, Errors.INVALID_REPLICA_ASSIGNMENT);
        TABLE.put(ErrorCode.BROKER_ID_NOT_REGISTERED, Errors.BROKER_ID_NOT_REGISTERED);
        TABLE.put(ErrorCode.FENCED_BROKER, Errors.BROKER_NOT_AVAILABLE);
        TABLE.put(ErrorCode.INVALID_UPDATE_VERSION, Errors.INVALID_UPDATE_VERSION);
        TABLE.put(ErrorCode.INELIGIBLE_REPLICA, Errors.INELIGIBLE_REPLICA);
        TABLE.put(ErrorCode.ELECTION_NOT_NEEDED, Errors.ELECTION_NOT_NEEDED);
        TABLE.put(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, Errors.PREFERRED_LEADER_NOT_AVAILABLE);
        TABLE.put(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE);
        TABLE.put(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, Errors.NO_REASSIGNMENT_IN_PROGRESS);
        TABLE.put(ErrorCode.UNSUPPORTED_VERSION, Errors.UNSUPPORTED_VERSION);
        TABLE.put(ErrorCode.INCONSISTENT_CLUSTER_ID, Errors.INCONSISTENT_CLUSTER_ID);
        TABLE.put(ErrorCode.MEMBER_ID_REQUIRED, Errors.MEMBER_ID_REQUIRED);
        TABLE.put(ErrorCode.INVALID_SESSION_TIMEOUT, Errors.INVALID_SESSION_TIMEOUT);
        TABLE.put(ErrorCode.POLICY_VIOLATION, Errors.POLICY_VIOLATION);
        TABLE.put(ErrorCode.THROTTLED, Errors.THROTTLING_QUOTA_EXCEEDED);
        TABLE.put(ErrorCode.INVALID_TIMESTAMP, Errors.INVALID_TIMESTAMP);
        TABLE.put(ErrorCode.TOPIC_DELETION_DISABLED, Errors.TOPIC_DELETION_DISABLED);
        TABLE.put(ErrorCode.INVALID_RECORD, Errors.INVALID_RECORD);
        TABLE.put(ErrorCode.OFFSET_NOT_AVAILABLE, Errors.OFFSET_NOT_AVAILABLE);
        TABLE.put(ErrorCode.TOPIC_AUTHORIZATION_FAILED, Errors.TOPIC_AUTHORIZATION_FAILED);
        TABLE.put(ErrorCode.GROUP_AUTHORIZATION_FAILED, Errors.GROUP_AUTHORIZATION_FAILED);
        TABLE.put(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, Errors.CLUSTER_AUTHORIZATION_FAILED);
        TABLE.put(ErrorCode.SASL_AUTHENTICATION_FAILED, Errors.SASL_AUTHENTICATION_FAILED);
        TABLE.put(ErrorCode.UNSUPPORTED_SASL_MECHANISM, Errors.UNSUPPORTED_SASL_MECHANISM);
        TABLE.put(ErrorCode.RESOURCE_NOT_FOUND, Errors.RESOURCE_NOT_FOUND);
        TABLE.put(ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, Errors.GROUP_SUBSCRIBED_TO_TOPIC);
        TABLE.put(ErrorCode.FETCH_SESSION_ID_NOT_FOUND, Errors.FETCH_SESSION_ID_NOT_FOUND);
        TABLE.put(ErrorCode.INVALID_FETCH_SESSION_EPOCH, Errors.INVALID_FETCH_SESSION_EPOCH);
    }

    private KafkaErrors() {
    }

    /** The Kafka error for {@code code}; a code this build does not know is UNKNOWN_SERVER_ERROR. */
    public static Errors of(ErrorCode code) {
        return TABLE.getOrDefault(code, Errors.UNKNOWN_SERVER_ERROR);
    }

    /** {@link #of} as the wire's short. */
    public static short code(ErrorCode code) {
        return of(code).code();
    }

    /** The table, for its test. */
    static Map<ErrorCode, Errors> table() {
        return Map.copyOf(TABLE);
    }
}
