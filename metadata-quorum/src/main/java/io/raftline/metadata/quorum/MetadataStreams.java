package io.raftline.metadata.quorum;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.raftline.common.Time;
import io.raftline.metadata.image.MetadataImage;
import io.raftline.protocol.controller.FetchMetadataRequest;
import io.raftline.protocol.controller.FetchMetadataResponse;
import io.raftline.protocol.metadata.MetadataSnapshot;
import java.io.Closeable;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves FetchMetadata: each stream gets the committed entries from its index on, then new ones as they are
 * applied on this node, or first a snapshot (this node's current image as records) when it asks for entries older
 * than the ones kept in memory. Respects gRPC flow control (sends only while the stream is ready) and sends a
 * keep-alive every second on an idle stream so a fetcher can tell a dead stream from a quiet cluster.
 *
 * <p>One writer per stream: all sending happens on the single publisher thread.
 */
final class MetadataStreams implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(MetadataStreams.class);
    private static final int MAX_ENTRIES_PER_MESSAGE = 500;
    static final long KEEP_ALIVE_MS = 1000;

    private final MetadataStateMachine stateMachine;
    private final QuorumServer quorum;
    private final Time time;
    private final Set<Stream> streams = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService publisher;
    private final MetadataStateMachine.CommitListener listener = (entry, delta, image) -> wakeAll();

    private final class Stream {
        final ServerCallStreamObserver<FetchMetadataResponse> observer;
        long nextIndex;
        long lastSentNs;
        volatile boolean closed;

        Stream(ServerCallStreamObserver<FetchMetadataResponse> observer, long nextIndex) {
            this.observer = observer;
            this.nextIndex = nextIndex;
        }
    }

    MetadataStreams(MetadataStateMachine stateMachine, QuorumServer quorum, int nodeId, Time time) {
        this.stateMachine = stateMachine;
        this.quorum = quorum;
        this.time = time;
        this.publisher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "metadata-publisher-" + nodeId);
            t.setDaemon(true);
            return t;
        });
        stateMachine.addCommitListener(listener);
        publisher.scheduleWithFixedDelay(this::keepAlive, KEEP_ALIVE_MS, KEEP_ALIVE_MS / 4, TimeUnit.MILLISECONDS);
    }

    void open(FetchMetadataRequest request, StreamObserver<FetchMetadataResponse> responseObserver) {
        ServerCallStreamObserver<FetchMetadataResponse> observer =
            (ServerCallStreamObserver<FetchMetadataResponse>) responseObserver;
        Stream s = new Stream(observer, Math.max(1, request.getFromIndex()));
        observer.setOnCancelHandler(() -> {
            s.closed = true;
            streams.remove(s);
        });
        observer.setOnReadyHandler(() -> wake(s));
        streams.add(s);
        wake(s);
    }

    private void wakeAll() {
        if (!streams.isEmpty()) {
            publisher.execute(() -> streams.forEach(this::drain));
        }
    }

    private void wake(Stream s) {
        try {
            publisher.execute(() -> drain(s));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // Shutting down.
        }
    }

    private void drain(Stream s) {
        try {
            while (!s.closed && s.observer.isReady()) {
                MetadataImage image = stateMachine.image();
                List<CommittedEntry> entries = stateMachine.entriesFrom(s.nextIndex, MAX_ENTRIES_PER_MESSAGE);
                FetchMetadataResponse.Builder resp = FetchMetadataResponse.newBuilder().setCommitIndex(commitIndex());
                if (entries == null) {
                    resp.setSnapshot(MetadataSnapshot.newBuilder().setLastAppliedIndex(image.index())
                        .addAllRecords(image.toRecords()));
                    s.nextIndex = image.index() + 1;
                } else if (entries.isEmpty()) {
                    return;
                } else {
                    for (CommittedEntry e : entries) {
                        resp.addEntries(FetchMetadataResponse.Entry.newBuilder().setIndex(e.index()).setTerm(e.term())
                            .setBatch(e.batch()));
                    }
                    s.nextIndex = entries.get(entries.size() - 1).index() + 1;
                }
                send(s, resp.build());
            }
        } catch (RuntimeException e) {
            LOG.debug("metadata stream failed", e);
            s.closed = true;
            streams.remove(s);
        }
    }

    private void send(Stream s, FetchMetadataResponse resp) {
        s.observer.onNext(resp);
        s.lastSentNs = time.nanoseconds();
    }

    private long commitIndex() {
        try {
            return quorum.commitIndex();
        } catch (RuntimeException e) {
            return stateMachine.image().index();
        }
    }

    private void keepAlive() {
        long now = time.nanoseconds();
        for (Stream s : streams) {
            if (!s.closed && now - s.lastSentNs > TimeUnit.MILLISECONDS.toNanos(KEEP_ALIVE_MS) && s.observer.isReady()) {
                try {
                    send(s, FetchMetadataResponse.newBuilder().setKeepAlive(true).setCommitIndex(commitIndex()).build());
                } catch (RuntimeException e) {
                    s.closed = true;
                    streams.remove(s);
                }
            }
        }
    }

    @Override
    public void close() {
        stateMachine.removeCommitListener(listener);
        publisher.shutdownNow();
        for (Stream s : streams) {
            try {
                s.observer.onError(io.grpc.Status.UNAVAILABLE.withDescription("node shutting down").asRuntimeException());
            } catch (RuntimeException e) {
                // Already closed.
            }
        }
        streams.clear();
    }
}
