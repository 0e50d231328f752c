package io.raftline.broker.kafka;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs and versions the Kafka listener serves: what ApiVersions advertises, and the only requests it accepts (one
 * outside it closes the connection, as Kafka's broker does; clients never send one since they read ApiVersions first).
 * Each range starts at the oldest version kafka-clients 4.4 can parse and ends where a newer version would change the
 * meaning of a field this listener does not serve yet (topic ids in Produce 13 and Fetch 13, ListOffsets' max-timestamp
 * query from 7, transactions v2 in InitProducerId 5, the batched groups of OffsetFetch 8, the consumer protocol of
 * KIP-848 in OffsetCommit 9). docs/kafka-compatibility.md is this table in prose.
 */
final class SupportedApis {

    private static final Map<ApiKeys, short[]> RANGES;

    static {
        Map<ApiKeys, short[]> m = new EnumMap<>(ApiKeys.class);
        m.put(ApiKeys.API_VERSIONS, range(0, 4));
        m.put(ApiKeys.METADATA, range(0, 12));
        m.put(ApiKeys.PRODUCE, range(3, 12));
        m.put(ApiKeys.FETCH, range(4, 12));
        m.put(ApiKeys.LIST_OFFSETS, range(1, 6));
        m.put(ApiKeys.INIT_PRODUCER_ID, range(0, 4));
        m.put(ApiKeys.CREATE_TOPICS, range(2, 7));
        m.put(ApiKeys.DELETE_TOPICS, range(1, 5));
        m.put(ApiKeys.DESCRIBE_CONFIGS, range(1, 4));
        m.put(ApiKeys.DESCRIBE_CLUSTER, range(0, 2));
        m.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, range(0, 1));
        m.put(ApiKeys.ALTER_CONFIGS, range(0, 2));
        m.put(ApiKeys.CREATE_PARTITIONS, range(0, 3));
        m.put(ApiKeys.DELETE_RECORDS, range(0, 2));
        m.put(ApiKeys.OFFSET_FOR_LEADER_EPOCH, range(2, 4));
        m.put(ApiKeys.DESCRIBE_LOG_DIRS, range(1, 5));
        m.put(ApiKeys.ELECT_LEADERS, range(0, 2));
        m.put(ApiKeys.DESCRIBE_ACLS, range(1, 3));
        m.put(ApiKeys.CREATE_ACLS, range(1, 3));
        m.put(ApiKeys.DELETE_ACLS, range(1, 3));
        m.put(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, range(0, 0));
        m.put(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, range(0, 0));
        m.put(ApiKeys.DESCRIBE_CLIENT_QUOTAS, range(0, 1));
        m.put(ApiKeys.ALTER_CLIENT_QUOTAS, range(0, 1));
        m.put(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, range(0, 0));
        m.put(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, range(0, 1));
        m.put(ApiKeys.LIST_PARTITION_REASSIGNMENTS, range(0, 0));
        m.put(ApiKeys.FIND_COORDINATOR, range(0, 6));
        // librdkafka 2.0.2 uses groups only when v0 is served
        m.put(ApiKeys.JOIN_GROUP, range(0, 9));
        m.put(ApiKeys.SYNC_GROUP, range(0, 5));
        m.put(ApiKeys.HEARTBEAT, range(0, 4));
        m.put(ApiKeys.LEAVE_GROUP, range(0, 5));
        m.put(ApiKeys.OFFSET_COMMIT, range(2, 8));
        m.put(ApiKeys.OFFSET_FETCH, range(1, 7));
        m.put(ApiKeys.LIST_GROUPS, range(0, 4));
        m.put(ApiKeys.DESCRIBE_GROUPS, range(0, 5));
        m.put(ApiKeys.DELETE_GROUPS, range(0, 3));
        m.put(ApiKeys.OFFSET_DELETE, range(0, 0));
        m.put(ApiKeys.DESCRIBE_PRODUCERS, range(0, 0));
        // SaslHandshake v0 (raw tokens after it) is pre-KIP-152: every client this listener serves sends v1
        m.put(ApiKeys.SASL_HANDSHAKE, range(1, 1));
        m.put(ApiKeys.SASL_AUTHENTICATE, range(0, 2));
        RANGES = Collections.unmodifiableMap(m);
    }

    private SupportedApis() {
    }

    private static short[] range(int min, int max) {
        return new short[] {(short) min, (short) max};
    }

    static boolean supports(ApiKeys key, short version) {
        short[] r = RANGES.get(key);
        return r != null && version >= r[0] && version <= r[1];
    }

    static short maxVersion(ApiKeys key) {
        return RANGES.get(key)[1];
    }

    /** The ApiVersions answer's list, in key order. */
    static ApiVersionCollection advertised() {
        ApiVersionCollection out = new ApiVersionCollection();
        RANGES.forEach((key, r) -> out.add(new ApiVersion().setApiKey(key.id).setMinVersion(r[0]).setMaxVersion(r[1])));
        return out;
    }

    static Map<ApiKeys, short[]> ranges() {
        return RANGES;
    }
}
