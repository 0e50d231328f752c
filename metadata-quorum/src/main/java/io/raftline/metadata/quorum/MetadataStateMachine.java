package io.raftline.metadata.quorum;

import com.google.protobuf.InvalidProtocolBufferException;
import io.raftline.common.io.Fsync;
import io.raftline.metadata.image.MetadataDelta;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.metadata.MetadataBatch;
import io.raftline.protocol.metadata.MetadataSnapshot;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine holding the metadata image. Each Raft entry written by the controller is one serialized
 * {@link MetadataBatch} (our protobuf, passed to Ratis as bytes: Ratis's shaded protobuf is a different class);
 * applying it is {@link MetadataDelta#replayBatch}. Raft's own entries (configuration, the leader's no-op) only move
 * the image's index. Snapshots are one file holding a {@link MetadataSnapshot} (the image as records) and are
 * loaded at start and after a snapshot is installed from the leader.
 *
 * <p>One writer: Ratis's state machine updater thread calls apply, notifyTermIndexUpdated, takeSnapshot and
 * reinitialize one at a time; {@link #image()} is a volatile read for everyone else. Listeners run on that thread
 * and must not block.
 */
public final class MetadataStateMachine extends BaseStateMachine {

    private static final Logger LOG = LoggerFactory.getLogger(MetadataStateMachine.class);

    /** Told about every applied entry, in order, on the apply thread; must return quickly. */
    public interface CommitListener {
        /** {@code delta} is null when the image was replaced wholesale (a snapshot was loaded). */
        void onCommit(CommittedEntry entry, MetadataDelta delta, MetadataImage image);
    }

    /** Told when this node's Ratis division becomes leader-ready or loses leadership (any thread). */
    public interface LeadershipListener {
        void onLeadershipChange();
    }

    private final String clusterId;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final EntryCache cache;
    private final List<CommitListener> listeners = new CopyOnWriteArrayList<>();
    private final List<LeadershipListener> leadershipListeners = new CopyOnWriteArrayList<>();
    private final AtomicLong leaderChanges = new AtomicLong();
    private volatile MetadataImage image = MetadataImage.EMPTY;
    private volatile long snapshotIndex;

    public MetadataStateMachine(String clusterId, int cachedEntries) {
        this.clusterId = clusterId;
        this.cache = new EntryCache(cachedEntries);
    }

    public MetadataImage image() {
        return image;
    }

    /** The index of the latest snapshot taken or loaded by this node (0: none). */
    public long snapshotIndex() {
        return snapshotIndex;
    }

    public void addCommitListener(CommitListener l) {
        listeners.add(l);
    }

    public void removeCommitListener(CommitListener l) {
        listeners.remove(l);
    }

    public void addLeadershipListener(LeadershipListener l) {
        leadershipListeners.add(l);
    }

    /** See {@link EntryCache#from}: entries since {@code fromIndex}, or null if a snapshot is needed. */
    public List<CommittedEntry> entriesFrom(long fromIndex, int max) {
        return cache.from(fromIndex, max, image.index());
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        load(storage.getLatestSnapshot());
        getLifeCycle().transition(LifeCycle.State.STARTING);
        getLifeCycle().transition(LifeCycle.State.RUNNING);
    }

    /**
     * Ratis pauses the state machine before installing a snapshot from the leader, then reloads it and asserts
     * that it is PAUSED (BaseStateMachine's pause does nothing, and the reload then kills the apply thread).
     */
    @Override
    public void pause() {
        if (getLifeCycleState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    @Override
    public void reinitialize() throws IOException {
        // Called after a snapshot was installed from the leader (this node was too far behind or wiped).
        load(storage.loadLatestSnapshot());
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    private void load(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        File file = snapshot.getFile().getPath().toFile();
        MD5Hash stored = MD5FileUtil.readStoredMd5ForFile(file);
        MD5Hash computed = MD5FileUtil.computeMd5ForFile(file);
        if (stored != null && !stored.equals(computed)) {
            throw new IOException("snapshot " + file + " is corrupt: MD5 " + computed + " is not the stored " + stored);
        }
        MetadataSnapshot s;
        try (InputStream in = Files.newInputStream(file.toPath())) {
            s = MetadataSnapshot.parseFrom(in);
        }
        if (!s.getClusterId().equals(clusterId)) {
            throw new IOException("snapshot " + file + " belongs to cluster '" + s.getClusterId() + "', not '" + clusterId + "'");
        }
        MetadataImage loaded = MetadataDelta.replayAll(MetadataImage.EMPTY, s.getLastAppliedIndex(), s.getRecordsList()).image();
        TermIndex ti = TermIndex.valueOf(s.getLastAppliedTerm(), s.getLastAppliedIndex());
        setLastAppliedTermIndex(ti);
        cache.clear();
        image = loaded;
        snapshotIndex = ti.getIndex();
        LOG.info("loaded metadata snapshot at {} ({} records)", ti, s.getRecordsCount());
        CommittedEntry marker = new CommittedEntry(ti.getIndex(), ti.getTerm(), MetadataBatch.getDefaultInstance());
        for (CommitListener l : listeners) {
            l.onCommit(marker, null, loaded);
        }
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        long index = entry.getIndex();
        MetadataBatch batch;
        try {
            batch = MetadataBatch.parseFrom(entry.getStateMachineLogEntry().getLogData().toByteArray());
        } catch (InvalidProtocolBufferException e) {
            // Our own leader wrote it; an unreadable entry is a broken invariant, not an operating error.
            throw new IllegalStateException("entry " + index + " is not a metadata batch", e);
        }
        MetadataDelta delta = MetadataDelta.replayBatch(image, index, batch);
        publish(new CommittedEntry(index, entry.getTerm(), batch), delta, delta.image());
        updateLastAppliedTermIndex(entry.getTerm(), index);
        return CompletableFuture.completedFuture(Message.valueOf(Long.toString(index)));
    }

    @Override
    public void notifyTermIndexUpdated(long term, long index) {
        // Raft's own entries (configuration changes, a new leader's first entry) carry no records.
        super.notifyTermIndexUpdated(term, index);
        if (index > image.index()) {
            MetadataImage next = image.withIndex(index);
            publish(new CommittedEntry(index, term, MetadataBatch.getDefaultInstance()), null, next);
        }
    }

    private void publish(CommittedEntry entry, MetadataDelta delta, MetadataImage next) {
        cache.add(entry);
        image = next;
        for (CommitListener l : listeners) {
            try {
                l.onCommit(entry, delta, next);
            } catch (RuntimeException e) {
                LOG.error("commit listener failed at index {}", entry.index(), e);
            }
        }
    }

    /**
     * Linearizable reads (Ratis ReadIndex) land here once this node has applied up to the leader's commit index at
     * the time of the read: the answer is the index of the applied image, a read point for read-your-writes.
     */
    @Override
    public CompletableFuture<Message> query(Message request) {
        String asked = request.getContent().toStringUtf8();
        if (asked.startsWith(VOTER_DIRECTORY_QUERY)) {
            int node = Integer.parseInt(asked.substring(VOTER_DIRECTORY_QUERY.length()));
            return getServer().thenApply(server -> {
                RaftConfiguration conf;
                try {
                    conf = server.getDivision(getGroupId()).getRaftConf();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                RaftPeerId id = QuorumServer.peerId(node);
                EmptyStorageDecision.Role role = conf.getPeer(id, RaftPeerRole.FOLLOWER) != null ? EmptyStorageDecision.Role.VOTER
                    : conf.getPeer(id, RaftPeerRole.LISTENER) != null ? EmptyStorageDecision.Role.LISTENER
                    : EmptyStorageDecision.Role.ABSENT;
                return Message.valueOf(role.name() + " " + image.voterDirectories().getOrDefault(node, ""));
            });
        }
        return CompletableFuture.completedFuture(Message.valueOf(Long.toString(image.index())));
    }

    /**
     * A linearizable query about node N: {@code voter-directory:N}, answered with its role in the current Raft
     * configuration and the directory id with which it joined ({@code "VOTER dir-id"}, {@code "ABSENT "}).
     */
    static final String VOTER_DIRECTORY_QUERY = "voter-directory:";

    static EmptyStorageDecision.QuorumAnswer parseVoterAnswer(String answer) {
        int space = answer.indexOf(' ');
        String dir = answer.substring(space + 1).trim();
        return new EmptyStorageDecision.QuorumAnswer(EmptyStorageDecision.Role.valueOf(answer.substring(0, space)),
            dir.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(dir));
    }

    @Override
    public long takeSnapshot() throws IOException {
        MetadataImage current = image;
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() <= 0 || current.index() != last.getIndex()) {
            // Nothing applied yet, or the image is between updates (cannot happen on the apply thread).
            return last == null ? -1 : snapshotIndex;
        }
        MetadataSnapshot snap = MetadataSnapshot.newBuilder().setLastAppliedIndex(last.getIndex())
            .setLastAppliedTerm(last.getTerm()).setClusterId(clusterId).addAllRecords(current.toRecords()).build();
        File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        // Durable before Ratis learns of it: once it does, it may purge the log entries the snapshot replaces.
        Fsync.replace(file.toPath(), snap::writeTo);
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        Fsync.file(MD5FileUtil.getDigestFileForFile(file).toPath());
        Fsync.directory(file.getParentFile().toPath());
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last));
        snapshotIndex = last.getIndex();
        LOG.info("metadata snapshot at {}: {} records, {} bytes", last, snap.getRecordsCount(), file.length());
        return last.getIndex();
    }

    @Override
    public SnapshotInfo getLatestSnapshot() {
        return storage.getLatestSnapshot();
    }

    @Override
    public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
        if (newLeaderId != null) {
            leaderChanges.incrementAndGet();
        }
        leadershipListeners.forEach(LeadershipListener::onLeadershipChange);
    }

    /** How many times this node has seen the quorum elect a leader (a new term's leader becoming known). */
    public long leaderChanges() {
        return leaderChanges.get();
    }

    /**
     * Ratis closes a division by itself when it finds, at an election timeout, that it is in no list of the
     * configuration (dropped by an earlier {@code remove-voter} of an observer, or a stale member the voters refuse):
     * the node's metadata stops here, so say so once, plainly.
     */
    @Override
    public void notifyServerShutdown(RoleInfoProto roleInfo, boolean allServer) {
        if (!allServer) {
            LOG.warn("this node is no longer in the metadata quorum's configuration and its quorum server has stopped;"
                + " restart it, then `raftline quorum add-voter` adds it back (or shut it down if it was"
                + " decommissioned)");
        }
    }

    @Override
    public void notifyLeaderReady() {
        leadershipListeners.forEach(LeadershipListener::onLeadershipChange);
    }
}
