package io.raftline.cli.command.verify;

import io.raftline.cli.CliException;
import io.raftline.cli.Errors;
import io.raftline.cli.verify.Event;
import io.raftline.cli.verify.History;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.ReplicaChecksum;
import io.raftline.client.admin.ReplicaLogInfo;
import io.raftline.client.common.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * After the final reads: every replica of each partition is asked for its CRC32C over the offsets all replicas
 * hold below every replica's high watermark ({@link Admin#replicaChecksums}), and the answers go into the history
 * as {@link Event.ReplicaChecksum}s, where {@code inconsistentOffsets} compares them. Brokers are asked through the
 * admin API, never by reading another host's files; a broker that does not answer leaves a note, not an anomaly.
 */
final class ReplicaComparison {

    private static final Duration PER_BROKER = Duration.ofSeconds(30);

    private ReplicaComparison() {
    }

    static void record(Admin admin, Collection<TopicPartition> partitions, History history, List<String> notes) {
        Set<TopicPartition> wanted = new HashSet<>(partitions);
        Map<TopicPartition, List<ReplicaLogInfo>> replicas = new HashMap<>();
        admin.describeLogs(null, PER_BROKER).values().forEach((broker, logs) -> {
            List<ReplicaLogInfo> held = await(logs, "broker " + broker + " did not describe its logs", notes);
            if (held != null) {
                held.stream().filter(r -> wanted.contains(r.partition()))
                    .forEach(r -> replicas.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r));
            }
        });
        Map<Integer, Map<TopicPartition, long[]>> asks = new TreeMap<>();
        replicas.forEach((tp, held) -> {
            long from = held.stream().mapToLong(ReplicaLogInfo::logStartOffset).max().orElse(0);
            long to = held.stream().mapToLong(ReplicaLogInfo::highWatermark).min().orElse(0);
            if (held.size() > 1 && to > from) {
                held.forEach(r -> asks.computeIfAbsent(r.brokerId(), k -> new HashMap<>()).put(tp, new long[] {from, to}));
            }
        });
        asks.forEach((broker, ranges) -> {
            List<ReplicaChecksum> sums = await(admin.replicaChecksums(broker, ranges, PER_BROKER),
                "broker " + broker + " gave no replica checksums", notes);
            for (ReplicaChecksum c : sums == null ? List.<ReplicaChecksum>of() : sums) {
                if (c.error() != null) {
                    notes.add("broker " + broker + " gave no checksum of " + c.partition() + ": " + c.error());
                } else {
                    history.add(new Event.ReplicaChecksum(c.partition().topic(), c.partition().partition(), broker,
                        c.fromOffset(), c.toOffset(), c.crc32c(), history.nowNs()));
                }
            }
        });
    }

    private static <T> T await(CompletableFuture<T> f, String failure, List<String> notes) {
        try {
            return f.get(PER_BROKER.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            notes.add(failure + " (" + Errors.describe(e) + "); its replicas were not compared");
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted");
        }
    }
}
