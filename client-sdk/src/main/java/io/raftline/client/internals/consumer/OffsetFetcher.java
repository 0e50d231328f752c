package io.raftline.client.internals.consumer;

import io.raftline.client.common.Cluster;
import io.raftline.client.common.Node;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.errors.ApiException;
import io.raftline.client.errors.Errors;
import io.raftline.client.errors.InterruptException;
import io.raftline.client.errors.RaftlineException;
import io.raftline.client.errors.RetriableException;
import io.raftline.client.errors.TimeoutException;
import io.raftline.client.internals.metadata.Metadata;
import io.raftline.client.internals.net.ConnectionPool;
import io.raftline.client.internals.net.GrpcErrors;
import io.raftline.common.Time;
import io.raftline.protocol.ErrorCode;
import io.raftline.protocol.broker.ListOffsetsRequest;
import io.raftline.protocol.broker.ListOffsetsResponse;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Looks up offsets by time with ListOffsets: the log start ({@link #EARLIEST}), the high watermark
 * ({@link #LATEST}), or the first offset at or after a timestamp. Each partition is asked of its leader; partitions
 * whose leader moved or is unknown are retried after a metadata refresh until the deadline.
 */
public final class OffsetFetcher {

    /** ListOffsets timestamp meaning the log start offset. */
    public static final long EARLIEST = -2L;
    /** ListOffsets timestamp meaning the high watermark. */
    public static final long LATEST = -1L;

    /** The answer for one partition: offset -1 when no record is at or after the time. */
    public record Result(long offset, long timestamp, int leaderEpoch) {
    }

    private final Metadata metadata;
    private final ConnectionPool pool;
    private final Time time;
    private final long retryBackoffMs;
    private final int requestTimeoutMs;

    /** Creates the fetcher. */
    private record InFlightKey(Node node, ListOffsetsRequest request) {
    }

    /** Lookups sent and not yet taken up by a caller (caller's thread only: the consumer is single-threaded). */
    private final Map<InFlightKey, CompletableFuture<ListOffsetsResponse>> inFlight = new HashMap<>();

    public OffsetFetcher(Metadata metadata, ConnectionPool pool, Time time, long retryBackoffMs, int requestTimeoutMs) {
        this.metadata = metadata;
        this.pool = pool;
        this.time = time;
        this.retryBackoffMs = retryBackoffMs;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    /**
     * Looks up every partition's offset for its timestamp, blocking until all are known or {@code deadlineMs}.
     *
     * @throws TimeoutException when some partitions are still unanswered at the deadline
     * @throws ApiException     for a non-retriable error (the broker's message kept)
     */
    public Map<TopicPartition, Result> listOffsets(Map<TopicPartition, Long> timestamps, long deadlineMs) {
        Map<TopicPartition, Result> out = new LinkedHashMap<>();
        Map<TopicPartition, Long> remaining = new LinkedHashMap<>(timestamps);
        RaftlineException last = null;
        Set<String> topics = new HashSet<>();
        timestamps.keySet().forEach(tp -> topics.add(tp.topic()));
        metadata.addTopics(topics);
        while (!remaining.isEmpty()) {
            if (time.hiResMilliseconds() >= deadlineMs) {
                throw new TimeoutException("Failed to get offsets by times in time for " + remaining.keySet()
                    + (last == null ? "" : ": " + last.getMessage()));
            }
            Cluster cluster = metadata.cluster();
            Map<Node, Map<TopicPartition, Long>> byLeader = new HashMap<>();
            boolean missingLeader = false;
            for (Map.Entry<TopicPartition, Long> e : remaining.entrySet()) {
                Node leader = cluster.leaderFor(e.getKey());
                if (leader == null) {
                    missingLeader = true;
                    continue;
                }
                byLeader.computeIfAbsent(leader, n -> new LinkedHashMap<>()).put(e.getKey(), e.getValue());
            }
            if (missingLeader) {
                awaitRefresh(deadlineMs);
            }
            Map<Node, CompletableFuture<ListOffsetsResponse>> calls = new HashMap<>();
            byLeader.forEach((node, parts) -> {
                ListOffsetsRequest.Builder req = ListOffsetsRequest.newBuilder().setReplicaId(-1);
                parts.forEach((tp, ts) -> req.addPartitions(ListOffsetsRequest.PartitionQuery.newBuilder().setTopic(tp.topic())
                    .setPartition(tp.partition()).setTimestamp(ts).setCurrentLeaderEpoch(-1)));
                ListOffsetsRequest request = req.build();
                // A call gets the whole request timeout even when this lookup's deadline is shorter (a poll): one that
                // is still running at the deadline is kept and taken up by the next lookup of the same partitions, so
                // a slow first connection is not cancelled and started again by every short poll.
                calls.put(node, inFlight.computeIfAbsent(new InFlightKey(node, request),
                    k -> pool.get(node).unary((s, o) -> s.listOffsets(request, o), requestTimeoutMs)));
            });
            boolean retry = false;
            for (Map.Entry<Node, CompletableFuture<ListOffsetsResponse>> call : calls.entrySet()) {
                ListOffsetsResponse response;
                try {
                    response = call.getValue().get(Math.max(0, deadlineMs - time.hiResMilliseconds()), TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new TimeoutException("Failed to get offsets by times in time for " + remaining.keySet()
                        + " (the lookup goes on and the next call takes its answer)");
                } catch (InterruptedException e) {
                    throw new InterruptException(e);
                } catch (ExecutionException e) {
                    last = GrpcErrors.toException(e, call.getKey().address());
                    metadata.requestUpdate();
                    retry = true;
                    continue;
                }
                for (ListOffsetsResponse.PartitionResult r : response.getPartitionsList()) {
                    TopicPartition tp = new TopicPartition(r.getTopic(), r.getPartition());
                    if (r.getError().getCode() == ErrorCode.NONE) {
                        out.put(tp, new Result(r.getOffset(), r.getTimestamp(), r.getLeaderEpoch()));
                        remaining.remove(tp);
                        continue;
                    }
                    ApiException e = Errors.toException(r.getError());
                    if (!(e instanceof RetriableException)) {
                        throw e;
                    }
                    last = e;
                    retry = true;
                    if (Errors.isInvalidMetadata(r.getError().getCode())) {
                        metadata.applyLeaderHint(tp, r.hasCurrentLeader() ? r.getCurrentLeader() : null);
                    }
                }
            }
            inFlight.values().removeIf(CompletableFuture::isDone);
            if (retry || missingLeader) {
                sleep(Math.min(retryBackoffMs, Math.max(0, deadlineMs - time.hiResMilliseconds())));
            }
        }
        return out;
    }

    private void awaitRefresh(long deadlineMs) {
        metadata.requestUpdate();
        try {
            metadata.refresh().get(Math.max(1, deadlineMs - time.hiResMilliseconds()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            // The loop retries until its deadline and reports the last error then.
        }
    }

    private void sleep(long ms) {
        if (ms <= 0) {
            return;
        }
        try {
            time.sleep(ms);
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        }
    }
}
