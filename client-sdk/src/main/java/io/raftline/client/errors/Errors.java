package io.raftline.client.errors;

import io.raftline.protocol.Error;
import io.raftline.protocol.ErrorCode;

/**
 * The one place that turns a wire {@link ErrorCode} into a typed exception. Every code has its own class; a code
 * this client does not know (a newer broker) becomes {@link UnknownServerException}. The broker's message is kept
 * as the exception's message.
 */
public final class Errors {

    private Errors() {
    }

    /** The exception for a wire error, or {@code null} when the code is {@code NONE}. */
    public static ApiException toException(Error error) {
        return toException(error.getCode(), error.getMessage());
    }

    /**
     * The exception for {@code code} carrying {@code message} (a default text naming the code when the message is
     * empty), or {@code null} for {@code NONE}.
     */
    public static ApiException toException(ErrorCode code, String message) {
        if (code == ErrorCode.NONE) {
            return null;
        }
        String text = message == null || message.isEmpty() ? defaultMessage(code) : message;
        return switch (code) {
            case CORRUPT_MESSAGE -> new CorruptRecordException(text);
            case UNKNOWN_TOPIC_OR_PARTITION -> new UnknownTopicOrPartitionException(text);
            case INVALID_TOPIC -> new InvalidTopicException(text);
            case TOPIC_ALREADY_EXISTS -> new TopicExistsException(text);
            case INVALID_PARTITIONS -> new InvalidPartitionsException(text);
            case INVALID_REPLICATION_FACTOR -> new InvalidReplicationFactorException(text);
            case INVALID_CONFIG -> new InvalidConfigurationException(text);
            case NOT_LEADER -> new NotLeaderException(text);
            case LEADER_NOT_AVAILABLE -> new LeaderNotAvailableException(text);
            case NOT_CONTROLLER -> new NotControllerException(text);
            case NOT_ENOUGH_REPLICAS -> new NotEnoughReplicasException(text);
            case NOT_ENOUGH_REPLICAS_AFTER_APPEND -> new NotEnoughReplicasAfterAppendException(text);
            case MESSAGE_TOO_LARGE -> new RecordTooLargeException(text);
            case UNSUPPORTED_FORMAT -> new UnsupportedFormatException(text);
            case OFFSET_OUT_OF_RANGE -> new OffsetOutOfRangeException(text);
            case FENCED_LEADER_EPOCH -> new FencedLeaderEpochException(text);
            case UNKNOWN_LEADER_EPOCH -> new UnknownLeaderEpochException(text);
            case STALE_BROKER_EPOCH -> new StaleBrokerEpochException(text);
            case REQUEST_TIMED_OUT -> new TimeoutException(text);
            case OUT_OF_ORDER_SEQUENCE -> new OutOfOrderSequenceException(text);
            case DUPLICATE_SEQUENCE -> new DuplicateSequenceException(text);
            case INVALID_PRODUCER_EPOCH -> new InvalidProducerEpochException(text);
            case UNKNOWN_PRODUCER_ID -> new UnknownProducerIdException(text);
            case COORDINATOR_NOT_AVAILABLE -> new CoordinatorNotAvailableException(text);
            case NOT_COORDINATOR -> new NotCoordinatorException(text);
            case COORDINATOR_LOAD_IN_PROGRESS -> new CoordinatorLoadInProgressException(text);
            case ILLEGAL_GENERATION -> new IllegalGenerationException(text);
            case UNKNOWN_MEMBER_ID -> new UnknownMemberIdException(text);
            case REBALANCE_IN_PROGRESS -> new RebalanceInProgressException(text);
            case GROUP_ID_NOT_FOUND -> new GroupIdNotFoundException(text);
            case NON_EMPTY_GROUP -> new NonEmptyGroupException(text);
            case INCONSISTENT_GROUP_PROTOCOL -> new InconsistentGroupProtocolException(text);
            case INVALID_REQUEST -> new InvalidRequestException(text);
            case STORAGE_ERROR -> new StorageErrorException(text);
            case BROKER_NOT_AVAILABLE -> new BrokerNotAvailableException(text);
            case INVALID_REPLICA_ASSIGNMENT -> new InvalidReplicaAssignmentException(text);
            case BROKER_ID_NOT_REGISTERED -> new BrokerIdNotRegisteredException(text);
            case FENCED_BROKER -> new FencedBrokerException(text);
            case INVALID_UPDATE_VERSION -> new InvalidUpdateVersionException(text);
            case INELIGIBLE_REPLICA -> new IneligibleReplicaException(text);
            case ELECTION_NOT_NEEDED -> new ElectionNotNeededException(text);
            case PREFERRED_LEADER_NOT_AVAILABLE -> new PreferredLeaderNotAvailableException(text);
            case ELIGIBLE_LEADERS_NOT_AVAILABLE -> new EligibleLeadersNotAvailableException(text);
            case NO_REASSIGNMENT_IN_PROGRESS -> new NoReassignmentInProgressException(text);
            case UNSUPPORTED_VERSION -> new UnsupportedVersionException(text);
            case INCONSISTENT_CLUSTER_ID -> new InconsistentClusterIdException(text);
            case MEMBER_ID_REQUIRED -> new MemberIdRequiredException(text);
            case INVALID_SESSION_TIMEOUT -> new InvalidSessionTimeoutException(text);
            case POLICY_VIOLATION -> new PolicyViolationException(text);
            case THROTTLED -> new ThrottledException(text);
            case INVALID_TIMESTAMP -> new InvalidTimestampException(text);
            case TOPIC_DELETION_DISABLED -> new TopicDeletionDisabledException(text);
            case INVALID_RECORD -> new InvalidRecordException(text);
            case OFFSET_NOT_AVAILABLE -> new OffsetNotAvailableException(text);
            case TOPIC_AUTHORIZATION_FAILED -> new TopicAuthorizationException(text);
            case GROUP_AUTHORIZATION_FAILED -> new GroupAuthorizationException(text);
            case CLUSTER_AUTHORIZATION_FAILED -> new ClusterAuthorizationException(text);
            case SASL_AUTHENTICATION_FAILED -> new SaslAuthenticationException(text);
            case UNSUPPORTED_SASL_MECHANISM -> new UnsupportedSaslMechanismException(text);
            case RESOURCE_NOT_FOUND -> new ResourceNotFoundException(text);
            case GROUP_SUBSCRIBED_TO_TOPIC -> new GroupSubscribedToTopicException(text);
            case FETCH_SESSION_ID_NOT_FOUND -> new FetchSessionIdNotFoundException(text);
            case INVALID_FETCH_SESSION_EPOCH -> new InvalidFetchSessionEpochException(text);
            case UNKNOWN -> new UnknownServerException(text);
            default -> new UnknownServerException(text);
        };
    }

    /** Whether a request that failed with {@code code} may succeed if sent again. */
    public static boolean isRetriable(ErrorCode code) {
        return toException(code, "") instanceof RetriableException;
    }

    /** Whether {@code code} means the client's leader or epoch information is stale (refresh metadata first). */
    public static boolean isInvalidMetadata(ErrorCode code) {
        return code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || toException(code, "") instanceof InvalidMetadataException;
    }

    private static String defaultMessage(ErrorCode code) {
        return code == ErrorCode.UNRECOGNIZED ? "an error code this client does not know" : "the server answered " + code.name();
    }
}
