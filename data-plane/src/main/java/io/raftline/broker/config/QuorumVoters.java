package io.raftline.broker.config;

import io.raftline.common.config.HostPort;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Parses {@code quorum.voters}: {@code id@host:port} entries, comma-separated. */
public final class QuorumVoters {

    private QuorumVoters() {
    }

    public static Map<Integer, HostPort> parse(String text) {
        Map<Integer, HostPort> voters = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return voters;
        }
        for (String entry : text.split(",")) {
            String item = entry.trim();
            int at = item.indexOf('@');
            if (at <= 0) {
                throw new IllegalArgumentException("expected id@host:port, got '" + item + "'");
            }
            int id;
            try {
                id = Integer.parseInt(item.substring(0, at));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected a numeric voter id in '" + item + "'");
            }
            if (id < 0) {
                throw new IllegalArgumentException("voter id must not be negative in '" + item + "'");
            }
            HostPort address = HostPort.parse(item.substring(at + 1));
            if (voters.put(id, address) != null) {
                throw new IllegalArgumentException("voter " + id + " is listed twice");
            }
        }
        return Collections.unmodifiableMap(voters);
    }
}
