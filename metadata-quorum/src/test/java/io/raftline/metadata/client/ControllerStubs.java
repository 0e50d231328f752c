package io.raftline.metadata.client;

import io.grpc.stub.StreamObserver;
import io.raftline.protocol.controller.BrokerHeartbeatRequest;
import io.raftline.protocol.controller.BrokerHeartbeatResponse;
import io.raftline.protocol.controller.ControllerServiceGrpc;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Controller endpoints for the ControllerChannel tests. */
final class ControllerStubs {

    private ControllerStubs() {
    }

    /**
     * Accepts TCP connections and never says a word (what a black-holed host looks like to a client); the socket is
     * added to {@code closeables}.
     */
    static InetSocketAddress silentAddress(List<AutoCloseable> closeables) throws Exception {
        ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        List<Socket> accepted = new ArrayList<>();
        Thread acceptor = new Thread(() -> {
            while (!socket.isClosed()) {
                try {
                    accepted.add(socket.accept());
                } catch (Exception closed) {
                    return;
                }
            }
        }, "silent-address");
        acceptor.setDaemon(true);
        acceptor.start();
        closeables.add(socket);
        return new InetSocketAddress("127.0.0.1", socket.getLocalPort());
    }

    /** A controller service that counts heartbeats and answers each "not fenced". */
    static ControllerServiceGrpc.ControllerServiceImplBase countingHeartbeats(AtomicInteger heartbeats) {
        return new ControllerServiceGrpc.ControllerServiceImplBase() {
            @Override
            public void brokerHeartbeat(BrokerHeartbeatRequest request, StreamObserver<BrokerHeartbeatResponse> out) {
                heartbeats.incrementAndGet();
                out.onNext(BrokerHeartbeatResponse.newBuilder().setIsFenced(false).build());
                out.onCompleted();
            }
        };
    }
}
