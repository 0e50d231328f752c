package io.raftline.bench;

import io.raftline.client.common.serialization.ByteArraySerializer;
import io.raftline.client.producer.ProducerRecord;
import io.raftline.client.producer.RaftlineProducer;
import io.raftline.common.SystemTime;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The failover probe with the clock inside the producer's process: records at a fixed rate (acks=all, idempotent,
 * linger.ms=5, as the Kafka side of {@code side-by-side.sh failover-*} runs its probe), every acknowledgement
 * timestamped in its callback. The side-by-side harness times Raftline's acknowledgements through
 * {@code raftline produce --report-acks} and a reader that takes them from a pipe one byte at a time; at 5,000
 * one-KiB lines a second that reader falls behind (its latencies grow to a minute), so a backlog of acknowledgements
 * can hide part of a pause. This probe measures the pause directly: kill a leader's node while it runs.
 *
 * <pre>
 *   java -cp "$CP" io.raftline.bench.AckGapProbe BOOTSTRAP TOPIC RATE COUNT [SIZE]   (CP as in {@link ScaleBench})
 * </pre>
 * Prints one JSON line: records, acked, errors, noAckGapMs and when the gap began (ms after the start), latencies.
 */
public final class AckGapProbe {

    private AckGapProbe() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        int rate = Integer.parseInt(args[2]);
        int count = Integer.parseInt(args[3]);
        int size = args.length > 4 ? Integer.parseInt(args[4]) : 1024;
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        props.setProperty("acks", "all");
        props.setProperty("enable.idempotence", "true");
        props.setProperty("linger.ms", "5");
        long[] ackedAtNs = new long[count];
        long[] latencyNs = new long[count];
        AtomicInteger errors = new AtomicInteger();
        AtomicReference<String> firstError = new AtomicReference<>("");
        byte[] value = new byte[size];
        new SplittableRandom(1).nextBytes(value);
        long startNs;
        try (RaftlineProducer<byte[], byte[]> producer = new RaftlineProducer<>(props, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            producer.partitionsFor(topic);
            startNs = SystemTime.INSTANCE.nanoseconds();
            for (int i = 0; i < count; i++) {
                long due = startNs + (long) (i * (1e9 / rate));
                long wait;
                while ((wait = due - SystemTime.INSTANCE.nanoseconds()) > 0) {
                    LockSupport.parkNanos(Math.min(wait, 200_000));
                }
                int index = i;
                producer.send(new ProducerRecord<>(topic, value), (metadata, e) -> {
                    long now = SystemTime.INSTANCE.nanoseconds();
                    if (e != null) {
                        errors.incrementAndGet();
                        firstError.compareAndSet("", e.toString());
                    } else {
                        ackedAtNs[index] = now;
                        latencyNs[index] = Math.max(1, now - due);
                    }
                });
            }
            producer.flush();
        }
        long[] acks = Arrays.stream(ackedAtNs).filter(t -> t != 0).sorted().toArray();
        long gap = 0;
        long gapStart = startNs;
        for (int i = 1; i < acks.length; i++) {
            if (acks[i] - acks[i - 1] > gap) {
                gap = acks[i] - acks[i - 1];
                gapStart = acks[i - 1];
            }
        }
        long[] lat = Arrays.stream(latencyNs).filter(t -> t != 0).sorted().toArray();
        if (lat.length == 0) {
            lat = new long[] {0};
        }
        System.out.printf(Locale.ROOT, "{\"records\":%d,\"acked\":%d,\"errors\":%d,\"ratePerSec\":%d,"
                + "\"noAckGapMs\":%.1f,\"gapStartAfterStartMs\":%d,"
                + "\"latencyMs\":{\"avg\":%.1f,\"p50\":%.1f,\"p99\":%.1f,\"max\":%.1f},\"firstError\":\"%s\"}%n",
            count, acks.length, errors.get(), rate, gap / 1e6, (gapStart - startNs) / 1_000_000,
            Arrays.stream(lat).average().orElse(0) / 1e6, lat[lat.length / 2] / 1e6, lat[(int) (lat.length * 0.99)] / 1e6,
            lat[lat.length - 1] / 1e6, firstError.get().replace('"', '\''));
    }
}
