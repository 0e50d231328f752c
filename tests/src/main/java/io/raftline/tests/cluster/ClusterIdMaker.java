package io.raftline.tests.cluster;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.UUID;

/** A cluster id in the 22-character form, from a UUID. */
final class ClusterIdMaker {

    private ClusterIdMaker() {
    }

    static String make(UUID uuid) {
        ByteBuffer bytes = ByteBuffer.allocate(16);
        bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }
}
