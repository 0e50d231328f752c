package io.raftline.common.config;

import java.net.InetSocketAddress;

/** A {@code host:port} pair from a config file ({@code [::1]:9092} for IPv6). */
public record HostPort(String host, int port) {

    public HostPort {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is out of range 0-65535");
        }
    }

    public static HostPort parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("expected HOST:PORT");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected HOST:PORT with a numeric port");
        }
        return new HostPort(host, port);
    }

    public InetSocketAddress toSocketAddress() {
        return new InetSocketAddress(host, port);
    }

    @Override
    public String toString() {
        return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }
}
