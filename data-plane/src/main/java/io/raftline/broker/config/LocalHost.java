package io.raftline.broker.config;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** This host's name, for advertising a listener bound to the wildcard address. */
final class LocalHost {

    private LocalHost() {
    }

    static String name() {
        try {
            return InetAddress.getLocalHost().getCanonicalHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
