package io.raftline.kafkabench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Many client connections to one broker, through the Kafka protocol (item 9 of issue 24), on either system: opens
 * CONNECTIONS TCP connections to BROKER (host:port), each greeted as a Kafka client greets a broker (ApiVersions),
 * keeps them all open, then sends ROUNDS Metadata requests on every connection, one after another, timing each
 * round trip. The broker's resident memory and open files ({@code /proc/PID}) and its heap in use after a full
 * collection ({@code jcmd PID GC.run}, then {@code GC.heap_info}) are read after one warm-up connection (opened, used
 * as the others, closed) and with all of them open, so what each connection costs the broker is their difference over
 * the count. The resident figure
 * also counts heap pages the JVM touches for the first time meanwhile (garbage included); the heap figure is what
 * the connections keep.
 *
 * <p>Args: {@code BROKER CONNECTIONS BROKER_PID [ROUNDS]}. Prints one JSON line on stdout.
 */
public final class ConnectionsProbe {

    private static final String CLIENT_ID = "connections-probe";

    private ConnectionsProbe() {
    }

    public static void main(String[] args) throws Exception {
        String[] hostPort = args[0].split(",")[0].split(":");
        InetSocketAddress broker = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        int count = Integer.parseInt(args[1]);
        long pid = Long.parseLong(args[2]);
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;

        MetadataRequest metadata = new MetadataRequest.Builder(new MetadataRequestData()
            .setTopics(List.of()).setAllowAutoTopicCreation(false)).build((short) 12);
        // One connection first, greeted and asked as the others will be, then closed: what the broker loads once for
        // the protocol (its classes: several MB of metaspace on a broker that has not served Kafka's protocol yet) is
        // not a cost per connection.
        int correlation = 0;
        try (SocketChannel warm = SocketChannel.open(broker)) {
            roundTrip(warm, new ApiVersionsRequest.Builder().build((short) 3), ++correlation);
            for (int r = 0; r < rounds; r++) {
                roundTrip(warm, metadata, ++correlation);
            }
        }
        long heapBefore = heapUsedKb(pid);
        long rssBefore = rssKb(pid);
        long fdsBefore = openFiles(pid);
        List<SocketChannel> open = new ArrayList<>(count);
        long[] connectNs = new long[count];
        long[] requestNs = new long[count * rounds];
        try {
            long t0 = System.nanoTime();
            for (int i = 0; i < count; i++) {
                long start = System.nanoTime();
                SocketChannel ch = SocketChannel.open(broker);
                open.add(ch);
                ch.socket().setTcpNoDelay(true);
                ByteBuffer answer = roundTrip(ch, new ApiVersionsRequest.Builder().build((short) 3), ++correlation);
                short error = answer.getShort();
                if (error != 0) {
                    throw new IllegalStateException("ApiVersions on connection " + i + " answered error " + error);
                }
                connectNs[i] = System.nanoTime() - start;
            }
            double openAllS = (System.nanoTime() - t0) / 1e9;
            Thread.sleep(1000); // let the broker settle its per-connection state before reading its memory
            long rssOpen = rssKb(pid);
            long fdsOpen = openFiles(pid);
            long heapOpen = heapUsedKb(pid);
            int n = 0;
            for (int r = 0; r < rounds; r++) {
                for (SocketChannel ch : open) {
                    long start = System.nanoTime();
                    roundTrip(ch, metadata, ++correlation);
                    requestNs[n++] = System.nanoTime() - start;
                }
            }
            long rssAfter = rssKb(pid);
            System.out.println(String.format(Locale.ROOT,
                "{\"connections\":%d,\"openAllS\":%.2f,\"connectMs\":%s,\"requestMs\":%s,\"rssBeforeMb\":%.1f,"
                    + "\"rssOpenMb\":%.1f,\"rssAfterRequestsMb\":%.1f,\"kbPerConnection\":%.1f,\"brokerFilesBefore\":%d,"
                    + "\"brokerFilesOpen\":%d,\"heapBeforeMb\":%.1f,\"heapOpenMb\":%.1f,\"heapKbPerConnection\":%.1f}",
                count, openAllS, percentiles(connectNs), percentiles(requestNs), rssBefore / 1024.0, rssOpen / 1024.0,
                rssAfter / 1024.0, (rssOpen - rssBefore) / (double) count, fdsBefore, fdsOpen, heapBefore / 1024.0,
                heapOpen / 1024.0, (heapOpen - heapBefore) / (double) count));
        } finally {
            for (SocketChannel ch : open) {
                ch.close();
            }
        }
    }

    /** Sends one size-prefixed request and reads its answer; returns the answer's body after the correlation id. */
    private static ByteBuffer roundTrip(SocketChannel ch, AbstractRequest request, int correlation) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), CLIENT_ID, correlation);
        ByteBuffer body = request.serializeWithHeader(header);
        ByteBuffer frame = ByteBuffer.allocate(4 + body.remaining()).putInt(body.remaining()).put(body).flip();
        while (frame.hasRemaining()) {
            ch.write(frame);
        }
        ByteBuffer size = readFully(ch, ByteBuffer.allocate(4));
        ByteBuffer answer = readFully(ch, ByteBuffer.allocate(size.getInt()));
        int got = answer.getInt();
        if (got != correlation) {
            throw new IllegalStateException("answer for correlation id " + got + ", expected " + correlation);
        }
        if (header.apiKey().responseHeaderVersion(request.version()) >= 1) {
            answer.get(); // the response header's tagged fields: none
        }
        return answer;
    }

    private static ByteBuffer readFully(SocketChannel ch, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            if (ch.read(buf) < 0) {
                throw new IOException("the broker closed the connection");
            }
        }
        return buf.flip();
    }

    private static String percentiles(long[] ns) {
        long[] s = ns.clone();
        Arrays.sort(s);
        return String.format(Locale.ROOT, "{\"p50\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f}", at(s, 0.5),
            at(s, 0.99), at(s, 0.999), s[s.length - 1] / 1e6);
    }

    private static double at(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))] / 1e6;
    }

    private static long rssKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        throw new IllegalStateException("no VmRSS for pid " + pid);
    }

    /** The broker's heap in use right after a full collection, in KiB, from its JVM's own jcmd. */
    private static long heapUsedKb(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("used (\\d+)K").matcher(jcmd(pid, "GC.heap_info"));
        if (!m.find()) {
            throw new IllegalStateException("no heap figure from jcmd " + pid + " GC.heap_info");
        }
        return Long.parseLong(m.group(1));
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
            String.valueOf(pid), command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("jcmd " + pid + " " + command + " failed: " + out);
        }
        return out;
    }

    private static long openFiles(long pid) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
            return fds.count();
        }
    }
}
