package io.raftline.metadata.quorum;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quorum's Raft RPC: Ratis's gRPC transport with one defect of Ratis 3.2.2's leader log appender closed.
 *
 * <p>The defect. {@code LogAppenderBase.newAppendEntriesRequest} reads the follower's next index twice: once to
 * look up the previous entry's term and index, then again to pick the entries to send, and asserts that the two
 * agree. The gRPC appender builds the request under its lock, but its reply handler raises the next index on a
 * SUCCESS reply without that lock. After an INCONSISTENCY reply has lowered the index while earlier appends were
 * still in flight (a burst of metadata writes while a follower is busy applying: 1,000-partition topic creations
 * here), a late SUCCESS raises it between the two reads, and the assertion fails ("Previous = (t:2, i:361) but
 * firstIndex = 379"). The appender's thread ends on that exception, and 3.2.2 does not restart an appender that
 * failed (its restart checks {@code isRunning()}, which is already false in the failed state: fixed upstream in
 * RATIS-2499, not released in 3.2.x). The leader then never replicates to that follower again until the term ends,
 * and the quorum runs on 2 of 3 voters: killing the other follower costs the majority.
 *
 * <p>The fix: when building a request fails on an assertion <em>and</em> the follower's next index moved while it
 * was built, nothing has been sent yet, so the appender skips this round ({@code null}, as when it has nothing to
 * send) and builds the request again from the new index on its next pass. A failure with an unmoved index is a
 * real inconsistency and is rethrown as before.
 *
 * <p>And should an appender fail for another reason, the leader replaces it (3.2.2 would leave it dead).
 *
 * <p>Selected through {@code raft.rpc.type} (the class name of {@link Type}); every other part of the transport is
 * Ratis's own.
 */
public final class QuorumRpc {

    private static final Logger LOG = LoggerFactory.getLogger(QuorumRpc.class);

    /** The {@link Parameters} key under which a server's {@link Hooks} reach its RPC factory. */
    static final String HOOKS_KEY = "raftline.quorum.rpc.hooks";

    private QuorumRpc() {
    }

    /**
     * One quorum server's view of its appenders, handed to the RPC factory through the server's {@link Parameters}
     * (Ratis instantiates the factory by class name, so nothing else reaches it): counters the server can report,
     * and how an append request is built (as Ratis builds it, unless a test wraps it to fail as a Ratis defect would).
     */
    public static final class Hooks {
        private final AtomicLong racedRequests = new AtomicLong();
        private final AtomicLong appenders = new AtomicLong();
        private final RequestWrapper wrapper;

        public Hooks() {
            this(RequestBuilder::build);
        }

        Hooks(RequestWrapper wrapper) {
            this.wrapper = wrapper;
        }

        /** Append requests built again because the follower's next index moved while one was built. */
        public long racedRequests() {
            return racedRequests.get();
        }

        /** Log appenders of this class the server created (one per follower per leadership term). */
        public long appenders() {
            return appenders.get();
        }

        /** Parameters for {@code RaftServer.Builder.setParameters} that carry these hooks. */
        public Parameters parameters() {
            Parameters p = new Parameters();
            p.put(HOOKS_KEY, this, Hooks.class);
            return p;
        }

        static Hooks of(Parameters parameters) {
            Hooks h = parameters == null ? null : parameters.get(HOOKS_KEY, Hooks.class);
            return h != null ? h : new Hooks();
        }
    }

    /** How an append request is built: around Ratis's own building. */
    @FunctionalInterface
    interface RequestWrapper {
        AppendEntriesRequestProto build(RequestBuilder<AppendEntriesRequestProto> ratis) throws RaftLogIOException;
    }

    /** The RPC type Ratis instantiates by class name from {@code raft.rpc.type}. */
    public static final class Type implements RpcType {
        public Type() {
        }

        @Override
        public String name() {
            return Type.class.getName();
        }

        @Override
        public RpcFactory newFactory(Parameters parameters) {
            return new Factory(parameters);
        }
    }

    /** Ratis's gRPC factory, with the log appender below. */
    static final class Factory extends GrpcFactory {
        private final Hooks hooks;

        Factory(Parameters parameters) {
            super(parameters);
            this.hooks = Hooks.of(parameters);
        }

        @Override
        public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
            return new Appender(server, state, follower, hooks);
        }
    }

    /**
     * Ratis's gRPC log appender whose request building survives a reply moving the next index mid-build, and which
     * is replaced by a new one when it fails anyway.
     */
    static final class Appender extends GrpcLogAppender {
        private final Hooks hooks;

        Appender(RaftServer.Division server, LeaderState state, FollowerInfo follower, Hooks hooks) {
            super(server, state, follower);
            this.hooks = hooks;
            hooks.appenders.incrementAndGet();
        }

        @Override
        public AppendEntriesRequestProto newAppendEntriesRequest(long callId, boolean heartbeat)
            throws RaftLogIOException {
            return buildOrSkip(() -> hooks.wrapper.build(() -> super.newAppendEntriesRequest(callId, heartbeat)),
                getFollower()::getNextIndex, getFollower().getName(), hooks.racedRequests);
        }

        /**
         * Ratis 3.2.2 logs a failed appender and then skips its own restart (see the class comment), so the leader
         * asks for a new appender here, from another thread once this one has ended, as later Ratis releases do.
         */
        @Override
        public void run() throws IOException {
            try {
                super.run();
            } catch (InterruptedIOException e) {
                throw e; // stopped
            } catch (IOException | RuntimeException e) {
                LOG.warn("{}: the log appender failed ({}); the leader starts a new one", getFollower().getName(),
                    e.toString());
                CompletableFuture.runAsync(this::replace, RESTART_DELAY);
                throw e;
            }
        }

        private void replace() {
            if (getServer().getInfo().isAlive() && getServer().getInfo().isLeader()) {
                getLeaderState().restart(this);
            }
        }
    }

    /** How long after a failed appender's thread ends its replacement starts (no tight loop on a lasting error). */
    private static final Executor RESTART_DELAY = CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS);

    /** Builds an append request the way Ratis does, which may throw {@link RaftLogIOException}. */
    @FunctionalInterface
    interface RequestBuilder<T> {
        T build() throws RaftLogIOException;
    }

    /**
     * Runs {@code builder}; if it fails on an assertion ({@link IllegalStateException}) while {@code nextIndex}
     * changed during the call, returns {@code null} (send nothing this round) instead of letting the appender die.
     */
    static <T> T buildOrSkip(RequestBuilder<T> builder, LongSupplier nextIndex, String follower, AtomicLong racedRequests)
        throws RaftLogIOException {
        long before = nextIndex.getAsLong();
        try {
            return builder.build();
        } catch (IllegalStateException e) {
            long after = nextIndex.getAsLong();
            if (after == before) {
                throw e;
            }
            long raced = racedRequests.incrementAndGet();
            if (Long.bitCount(raced) == 1) { // the 1st, 2nd, 4th, 8th ... time: visible, never a flood
                LOG.info("{}: next index moved from {} to {} while an append request was built ({}); building it "
                    + "again ({} times on this server)", follower, before, after, e.getMessage(), raced);
            }
            return null;
        }
    }
}
