package io.raftline.client.admin;

/**
 * A registered broker as {@link Admin#describeBrokers()} reports it.
 *
 * @param id       the broker id
 * @param host     its advertised host
 * @param port     its advertised port
 * @param rack     its rack, or null
 * @param state    {@code active}, {@code fenced} or {@code shutting-down}
 * @param epoch    the broker epoch of its current registration
 */
public record BrokerDescription(int id, String host, int port, String rack, String state, long epoch) {

    /** {@code host:port}. */
    public String endpoint() {
        return host + ":" + port;
    }
}
