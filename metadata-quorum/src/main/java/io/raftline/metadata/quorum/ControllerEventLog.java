package io.raftline.metadata.quorum;

import io.raftline.common.Uuid;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.metadata.image.PartitionRegistration;
import io.raftline.metadata.image.TopicImage;
import io.raftline.protocol.metadata.MetadataRecord;
import io.raftline.protocol.metadata.PartitionChangeRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's record of the cluster's decisions: one INFO line per committed broker state change, topic creation
 * or deletion, config change and partition leader/ISR change (with the controller's reason), written only on the
 * active controller so each event is logged once in the cluster, and only once it is committed.
 */
final class ControllerEventLog implements MetadataStateMachine.CommitListener {

    private static final Logger LOG = LoggerFactory.getLogger("io.raftline.controller.events");

    /** Partition changes of one entry logged a line each; the rest are counted. */
    static final int PARTITION_LINES = 100;

    private final BooleanSupplier active;

    ControllerEventLog(BooleanSupplier active) {
        this.active = active;
    }

    @Override
    public void onCommit(CommittedEntry entry, MetadataDelta delta, MetadataImage image) {
        if (delta == null || !LOG.isInfoEnabled() || !active.getAsBoolean()) {
            return;
        }
        for (String line : lines(entry.batch().getRecordsList(), image)) {
            LOG.info("{} (index {})", line, entry.index());
        }
    }

    /**
     * The lines of one entry: each record's, except that partition changes past the first
     * {@link #PARTITION_LINES} are counted by reason into one closing line. A broker leaving or joining a
     * cluster of 100,000 partitions changes some 14,000 of them in one entry; a line each took this node's apply
     * thread 1 to 2.5 s, which the entry's commit (and every write behind it) waited for.
     */
    static List<String> lines(List<MetadataRecord> records, MetadataImage image) {
        List<String> out = new ArrayList<>();
        int partitionChanges = 0;
        Map<String, Integer> moreByReason = new LinkedHashMap<>();
        for (MetadataRecord record : records) {
            if (record.hasPartitionChange() && ++partitionChanges > PARTITION_LINES) {
                moreByReason.merge(record.getPartitionChange().getReason(), 1, Integer::sum);
                continue;
            }
            String line = describe(record, image);
            if (line != null) {
                out.add(line);
            }
        }
        if (!moreByReason.isEmpty()) {
            StringBuilder more = new StringBuilder("and ").append(partitionChanges - PARTITION_LINES)
                .append(" more partition changes:");
            moreByReason.forEach((reason, n) -> more.append(' ').append(n).append(" because ")
                .append(reason.isEmpty() ? "(no reason given)" : reason).append(';'));
            more.setLength(more.length() - 1);
            out.add(more.toString());
        }
        return out;
    }

    /** One line for a record an operator cares about, or null for the rest (per-partition creation, features). */
    static String describe(MetadataRecord record, MetadataImage image) {
        switch (record.getRecordCase()) {
            case REGISTER_BROKER:
                return "broker " + record.getRegisterBroker().getBrokerId() + " registered (incarnation "
                    + record.getRegisterBroker().getIncarnationId() + ")";
            case BROKER_STATE:
                return "broker " + record.getBrokerState().getBrokerId() + " is now "
                    + record.getBrokerState().getState().name().toLowerCase().replace('_', '-');
            case UNREGISTER_BROKER:
                return "broker " + record.getUnregisterBroker().getBrokerId() + " unregistered";
            case TOPIC:
                return "topic " + record.getTopic().getName() + " created (id "
                    + Uuid.fromBytes(record.getTopic().getTopicId().toByteArray()) + ")";
            case REMOVE_TOPIC:
                return "topic id " + Uuid.fromBytes(record.getRemoveTopic().getTopicId().toByteArray()) + " deleted";
            case CONFIG:
                return "config " + record.getConfig().getResourceType().name().toLowerCase() + " '"
                    + record.getConfig().getResourceName() + "': " + record.getConfig().getName()
                    + (record.getConfig().hasValue() ? " = " + record.getConfig().getValue() : " removed");
            case PARTITION_CHANGE:
                return partitionChange(record.getPartitionChange(), image);
            case VOTER_DIRECTORY:
                return "quorum node " + record.getVoterDirectory().getNodeId() + " joined with metadata directory "
                    + record.getVoterDirectory().getDirectoryId();
            default:
                return null;
        }
    }

    private static String partitionChange(PartitionChangeRecord change, MetadataImage image) {
        Optional<TopicImage> topic = image.topic(Uuid.fromBytes(change.getTopicId().toByteArray()));
        String name = topic.map(TopicImage::name).orElse("(deleted topic)") + "-" + change.getPartition();
        PartitionRegistration now = topic.map(t -> t.partitions().get(change.getPartition())).orElse(null);
        StringBuilder line = new StringBuilder(name).append(':');
        if (change.hasLeader()) {
            line.append(" leader ").append(change.getLeader() < 0 ? "none" : Integer.toString(change.getLeader()));
            if (now != null) {
                line.append(" at epoch ").append(now.leaderEpoch());
            }
        }
        if (change.hasIsr()) {
            line.append(" ISR ").append(change.getIsr().getValuesList());
        }
        if (change.hasReplicas()) {
            line.append(" replicas ").append(change.getReplicas().getValuesList());
        }
        if (now != null && now.belowMinIsr()) {
            line.append(" (below min.insync.replicas)");
        }
        if (!change.getReason().isEmpty()) {
            line.append(" because ").append(change.getReason());
        }
        return line.toString();
    }
}
