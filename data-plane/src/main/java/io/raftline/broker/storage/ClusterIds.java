package io.raftline.broker.storage;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.UUID;

/** Cluster and directory ids: 16 random bytes shown as 22-char URL-safe base64 without padding, as Kafka's. */
public final class ClusterIds {

    private ClusterIds() {
    }

    public static String random() {
        UUID uuid = UUID.randomUUID();
        ByteBuffer bytes = ByteBuffer.allocate(16);
        bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    /** Throws {@link IllegalArgumentException} unless {@code id} is 22 URL-safe base64 chars encoding 16 bytes. */
    public static void validate(String id) {
        if (id == null || id.length() != 22) {
            throw new IllegalArgumentException("a cluster id is 22 characters of URL-safe base64 "
                + "(make one with 'raftline storage random-uuid'), got '" + id + "'");
        }
        try {
            byte[] bytes = Base64.getUrlDecoder().decode(id);
            if (bytes.length != 16) {
                throw new IllegalArgumentException("a cluster id encodes 16 bytes, '" + id + "' does not");
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + id + "' is not a valid cluster id: not URL-safe base64");
        }
    }
}
