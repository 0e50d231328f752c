package io.raftline.client.common;

/**
 * A broker as the client knows it from metadata.
 *
 * @param id   the broker's node id; -1 for a bootstrap address whose id is not known yet
 * @param host its host name or address
 * @param port its data-plane port
 * @param rack its rack, or null
 */
public record Node(int id, String host, int port, String rack) {

    /** The broker with no known node id. */
    public static final int NO_ID = -1;

    /** {@code host:port}. */
    public String address() {
        return host + ":" + port;
    }

    @Override
    public String toString() {
        return id + "@" + host + ":" + port + (rack == null ? "" : " (rack " + rack + ")");
    }
}
