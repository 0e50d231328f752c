package io.raftline.common.io;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Whether a server could listen on an address now: the bind it would make, tried and let go. */
public final class PortProbe {

    private PortProbe() {
    }

    /**
     * Binds {@code address} as a server does (SO_REUSEADDR, so a port in TIME_WAIT counts as free) and releases it.
     *
     * @throws IOException what the bind threw: the address is taken (BindException) or cannot be bound here
     */
    public static void bindAndRelease(InetSocketAddress address) throws IOException {
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(address);
        }
    }
}
