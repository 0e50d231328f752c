package io.raftline.kafkabench;

import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The failover workloads' producer on the Kafka side of tests/scripts/side-by-side.py: sends RECORDS records of
 * RECORD_SIZE bytes at a fixed RATE (acks=all, idempotent, linger.ms=5; more producer properties as K=V) and keeps
 * the time of every acknowledgement, so that the longest stretch without any ({@code noAckGapMs}) can be read while
 * a broker is killed. Latency counts from each record's scheduled send time, so a stalled producer is not hidden.
 *
 * <p>Args: {@code BOOTSTRAP TOPIC RATE RECORDS RECORD_SIZE [K=V...]}. Prints {@code start_epoch_ms=...} on stderr when
 * the schedule starts and one JSON line on stdout at the end.
 */
public final class FailoverProbe {

    private FailoverProbe() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        int rate = Integer.parseInt(args[2]);
        int records = Integer.parseInt(args[3]);
        int size = Integer.parseInt(args[4]);
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("acks", "all");
        p.put("enable.idempotence", "true");
        p.put("linger.ms", "5");
        for (int i = 5; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            p.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        long[] ackNs = new long[records];
        long[] latencyNs = new long[records];
        AtomicInteger acked = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<String> firstError = new AtomicReference<>("");
        byte[] value = new byte[size];
        new Random(42).nextBytes(value);
        long startEpochMs;
        long startNs;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.partitionsFor(topic); // connected, with metadata, before the schedule starts
            startEpochMs = System.currentTimeMillis();
            startNs = System.nanoTime();
            System.err.println("start_epoch_ms=" + startEpochMs);
            double intervalNs = 1e9 / rate;
            for (int i = 0; i < records; i++) {
                long due = startNs + (long) (i * intervalNs);
                long now;
                while ((now = System.nanoTime()) < due) {
                    if (due - now > 200_000) {
                        Thread.sleep(0, 100_000);
                    }
                }
                int idx = i;
                producer.send(new ProducerRecord<>(topic, value), (md, e) -> {
                    long t = System.nanoTime();
                    if (e != null) {
                        failed.incrementAndGet();
                        firstError.compareAndSet("", String.valueOf(e));
                    } else {
                        acked.incrementAndGet();
                        ackNs[idx] = t;
                        latencyNs[idx] = Math.max(1, t - due);
                    }
                });
            }
            producer.flush();
        }
        long[] acks = Arrays.stream(ackNs).filter(t -> t != 0).sorted().toArray();
        long gap = 0;
        long gapStart = startNs;
        long gapEnd = startNs;
        for (int i = 1; i < acks.length; i++) {
            if (acks[i] - acks[i - 1] > gap) {
                gap = acks[i] - acks[i - 1];
                gapStart = acks[i - 1];
                gapEnd = acks[i];
            }
        }
        long[] lat = Arrays.stream(latencyNs).filter(t -> t != 0).sorted().toArray();
        if (lat.length == 0) {
            lat = new long[] {0};
        }
        System.out.printf(Locale.ROOT, "{\"records\":%d,\"acked\":%d,\"errors\":%d,\"ratePerSec\":%d,\"noAckGapMs\":%.1f,"
                + "\"gapStartEpochMs\":%d,\"gapEndEpochMs\":%d,\"startEpochMs\":%d,"
                + "\"latencyMs\":{\"avg\":%.1f,\"p50\":%.1f,\"p99\":%.1f,\"p999\":%.1f,\"max\":%.1f},\"firstError\":\"%s\"}%n",
            records, acked.get(), failed.get(), rate, gap / 1e6, startEpochMs + (gapStart - startNs) / 1_000_000,
            startEpochMs + (gapEnd - startNs) / 1_000_000, startEpochMs, Arrays.stream(lat).average().orElse(0) / 1e6,
            lat[lat.length / 2] / 1e6, lat[(int) (lat.length * 0.99)] / 1e6, lat[(int) (lat.length * 0.999)] / 1e6,
            lat[lat.length - 1] / 1e6, firstError.get().replace('"', '\'').replace('\\', '/'));
    }
}
