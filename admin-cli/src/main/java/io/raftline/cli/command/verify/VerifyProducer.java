package io.raftline.cli.command.verify;

import io.raftline.cli.Errors;
import io.raftline.cli.verify.Event;
import io.raftline.cli.verify.History;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.common.serialization.StringSerializer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.common.Time;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One producer of the workload, on its own thread: unique values ({@code <name>-<seq>}) sent round-robin over the
 * partitions at a fixed rate, each send and its outcome recorded in the history. The sending thread owns the producer;
 * the producer's callbacks only append to the history and count.
 */
final class VerifyProducer implements Runnable {

    private final String name;
    private final Event.Acks acks;
    private final Properties props;
    private final List<TopicPartition> targets;
    private final double ratePerSec;
    private final History history;
    private final Time time;
    private volatile boolean stopping;
    final AtomicLong sent = new AtomicLong();
    final AtomicLong acked = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    private volatile String firstError;

    VerifyProducer(String name, Event.Acks acks, Properties props, List<TopicPartition> targets, double ratePerSec, History history,
                   Time time) {
        this.name = name;
        this.acks = acks;
        this.props = props;
        this.targets = List.copyOf(targets);
        this.ratePerSec = ratePerSec;
        this.history = history;
        this.time = time;
    }

    /** Asks the loop to stop sending; it then waits for every outstanding send and closes. */
    void stop() {
        stopping = true;
    }

    String firstError() {
        return firstError;
    }

    @Override
    public void run() {
        try (RaftlineProducer<String, String> producer = new RaftlineProducer<>(props, new StringSerializer(), new StringSerializer())) {
            long startNs = time.nanoseconds();
            long seq = 0;
            while (!stopping) {
                long dueNs = startNs + (long) (seq * 1e9 / ratePerSec);
                long waitNs = dueNs - time.nanoseconds();
                if (waitNs > 1_000_000L) {
                    time.sleep(waitNs / 1_000_000L);
                    continue;
                }
                TopicPartition tp = targets.get((int) (seq % targets.size()));
                send(producer, tp, name + "-" + seq);
                seq++;
            }
            producer.flush();
            producer.close(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            if (firstError == null) {
                firstError = name + ": " + Errors.describe(e);
            }
        }
    }

    private void send(RaftlineProducer<String, String> producer, TopicPartition tp, String value) {
        long invokeNs = history.nowNs();
        sent.incrementAndGet();
        try {
            producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, value), (metadata, exception) -> {
                long atNs = history.nowNs();
                if (exception == null) {
                    acked.incrementAndGet();
                    history.add(new Event.Send(name, acks, tp.topic(), value, invokeNs, atNs, metadata.partition(), metadata.offset(),
                        null));
                } else {
                    failed(tp, value, invokeNs, atNs, exception);
                }
            });
        } catch (RuntimeException e) {
            failed(tp, value, invokeNs, history.nowNs(), e);
        }
    }

    private void failed(TopicPartition tp, String value, long invokeNs, long atNs, Throwable e) {
        failed.incrementAndGet();
        String reason = Errors.describe(e);
        if (firstError == null) {
            firstError = name + ": " + reason;
        }
        history.add(new Event.Send(name, acks, tp.topic(), value, invokeNs, atNs, -1, -1, reason));
    }
}
