package io.raftline.metadata.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.raftline.metadata.controller.ControllerConfig;
import io.raftline.common.SystemTime;
import io.raftline.metadata.client.ControllerChannel;
import io.raftline.protocol.ErrorCode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.proto.grpc.AdminProtocolServiceGrpc;
import org.apache.ratis.proto.grpc.RaftClientProtocolServiceGrpc;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile bytes on the quorum listener (Ratis's own gRPC port, which the Raftline code does not parse): seeded
 * garbage at the TCP and HTTP/2 level, and well-framed gRPC calls to every Ratis method carrying random, cut or
 * flipped protobuf bodies. Each connection is answered or closed, and afterwards the quorum still has its leader in
 * the same term, commits a write on every voter, and no node has stopped. (With quorum.listener TLS and mTLS, such a
 * client does not get past the handshake; this is the plaintext listener, the widest door.)
 */
@Timeout(180)
class QuorumPortHostileTest {

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    /** An empty SETTINGS frame. */
    private static final byte[] SETTINGS = {0, 0, 0, 4, 0, 0, 0, 0, 0};

    private static final MethodDescriptor.Marshaller<byte[]> RAW = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    };

    @Test
    void garbageAndMalformedRatisCallsChangeNothing() throws Exception {
        long seed = Long.getLong("quorum.hostile.seed", 20_261_204L);
        System.out.println("QuorumPortHostileTest seed " + seed + " (replay with -Dquorum.hostile.seed=" + seed + ")");
        RandomGenerator random = new SplittableRandom(seed);
        try (TestQuorum q = new TestQuorum(3, "hostile", 1000,
            ControllerConfig.builder().brokerSessionTimeoutMs(60_000).build())) {
            QuorumNode leader = q.awaitActive();
            long term = leader.quorumServer().term();
            List<InetSocketAddress> targets = new ArrayList<>(q.voters.values());

            for (int i = 0; i < 150; i++) {
                rawConnection(targets.get(random.nextInt(targets.size())), hostileBytes(random));
            }
            List<String> methods = List.of(
                RaftServerProtocolServiceGrpc.getRequestVoteMethod().getFullMethodName(),
                RaftServerProtocolServiceGrpc.getStartLeaderElectionMethod().getFullMethodName(),
                RaftServerProtocolServiceGrpc.getReadIndexMethod().getFullMethodName(),
                RaftServerProtocolServiceGrpc.getAppendEntriesMethod().getFullMethodName(),
                RaftServerProtocolServiceGrpc.getInstallSnapshotMethod().getFullMethodName(),
                RaftClientProtocolServiceGrpc.getOrderedMethod().getFullMethodName(),
                RaftClientProtocolServiceGrpc.getUnorderedMethod().getFullMethodName(),
                AdminProtocolServiceGrpc.getSetConfigurationMethod().getFullMethodName(),
                AdminProtocolServiceGrpc.getGroupManagementMethod().getFullMethodName(),
                AdminProtocolServiceGrpc.getTransferLeadershipMethod().getFullMethodName(),
                AdminProtocolServiceGrpc.getSnapshotManagementMethod().getFullMethodName(),
                AdminProtocolServiceGrpc.getLeaderElectionManagementMethod().getFullMethodName(),
                AdminProtocolServiceGrpc.getGroupListMethod().getFullMethodName(),
                AdminProtocolServiceGrpc.getGroupInfoMethod().getFullMethodName());
            for (InetSocketAddress target : targets) {
                ManagedChannel channel = NettyChannelBuilder.forAddress(target).usePlaintext().build();
                try {
                    for (int i = 0; i < 40; i++) {
                        String method = methods.get(random.nextInt(methods.size()));
                        Status status = call(channel, method, protobufLike(random));
                        assertThat(status.getCode()).as(method).isNotEqualTo(Status.Code.DEADLINE_EXCEEDED);
                    }
                } finally {
                    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                }
            }

            // the quorum is as it was: same leader and term, and it still commits on every voter
            assertThat(q.awaitActive().nodeId()).isEqualTo(leader.nodeId());
            assertThat(leader.quorumServer().term()).as("term").isEqualTo(term);
            try (ControllerChannel channel = new ControllerChannel(q.controllerEndpoints(), SystemTime.INSTANCE, 20_000)) {
                QuorumFailoverTest.registerOneBroker(channel, q.clusterId);
                assertThat(channel.createTopics(QuorumFailoverTest.topic("after")).get(20, TimeUnit.SECONDS).getTopics(0)
                    .getError().getCode()).isEqualTo(ErrorCode.NONE);
            }
            long index = leader.image().index();
            await().atMost(Duration.ofSeconds(20)).until(() -> q.nodes.values().stream().allMatch(n -> n.image().index() >= index));
            assertThat(q.nodes.values()).allMatch(n -> n.image().topicIdsByName().containsKey("after"));
        }
    }

    /** TCP bytes: random ones, or an HTTP/2 preface and settings followed by random frames or cut short. */
    private static byte[] hostileBytes(RandomGenerator random) {
        byte[] tail = new byte[1 + random.nextInt(2048)];
        random.nextBytes(tail);
        return switch (random.nextInt(4)) {
            case 0 -> tail;
            case 1 -> concat(PREFACE, tail);
            case 2 -> concat(PREFACE, SETTINGS, tail);
            default -> java.util.Arrays.copyOf(PREFACE, random.nextInt(PREFACE.length));
        };
    }

    /** A body a protobuf parser may half accept: random bytes, or varint-tagged fields with random contents. */
    private static byte[] protobufLike(RandomGenerator random) {
        if (random.nextBoolean()) {
            byte[] b = new byte[random.nextInt(512)];
            random.nextBytes(b);
            return b;
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int fields = 1 + random.nextInt(6);
        for (int f = 0; f < fields; f++) {
            int number = 1 + random.nextInt(20);
            if (random.nextBoolean()) {
                out.write(number << 3);
                writeVarint(out, random.nextLong());
            } else {
                out.write((number << 3) | 2);
                byte[] payload = new byte[random.nextInt(64)];
                random.nextBytes(payload);
                // a length that may lie about what follows
                writeVarint(out, random.nextInt(4) == 0 ? random.nextInt(Integer.MAX_VALUE) : payload.length);
                out.writeBytes(payload);
            }
        }
        return out.toByteArray();
    }

    private static void writeVarint(java.io.ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** Writes {@code bytes} on a new connection, then reads until the server closes it or 250 ms pass. */
    private static void rawConnection(InetSocketAddress target, byte[] bytes) throws IOException {
        try (Socket socket = new Socket(target.getAddress(), target.getPort())) {
            socket.setSoTimeout(250);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(bytes);
                out.flush();
                InputStream in = socket.getInputStream();
                byte[] buf = new byte[4096];
                while (in.read(buf) >= 0) {
                    // drain what the server answers (GOAWAY, settings) until it closes
                }
            } catch (SocketTimeoutException | java.net.SocketException e) {
                // still open after 250 ms, or reset by the server: both are answers
            }
        }
    }

    /** One call of {@code method} carrying {@code body} as its (only) message; its final status. */
    private static Status call(ManagedChannel channel, String method, byte[] body) throws Exception {
        MethodDescriptor<byte[], byte[]> descriptor = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.BIDI_STREAMING).setFullMethodName(method)
            .setRequestMarshaller(RAW).setResponseMarshaller(RAW).build();
        CompletableFuture<Status> done = new CompletableFuture<>();
        ClientCall<byte[], byte[]> call = channel.newCall(descriptor, CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS));
        call.start(new ClientCall.Listener<>() {
            @Override
            public void onClose(Status status, Metadata trailers) {
                done.complete(status);
            }
        }, new Metadata());
        call.request(16);
        call.sendMessage(body);
        call.halfClose();
        return done.get(10, TimeUnit.SECONDS);
    }
}
