package io.raftline.broker.storage;

import io.raftline.common.Uuid;
import java.security.SecureRandom;

/** Cluster and directory ids: {@link Uuid}s, 22-char URL-safe base64 as Kafka's. */
public final class ClusterIds {

    private static final SecureRandom RANDOM = new SecureRandom();

    private ClusterIds() {
    }

    public static String random() {
        return Uuid.random(RANDOM).toString();
    }

    /** Throws {@link IllegalArgumentException} unless {@code id} is 22 URL-safe base64 chars encoding 16 bytes. */
    public static void validate(String id) {
        if (id == null || id.length() != 22) {
            throw new IllegalArgumentException("a cluster id is 22 characters of URL-safe base64 "
                + "(make one with 'raftline storage random-uuid'), got '" + id + "'");
        }
        try {
            Uuid.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + id + "' is not a valid cluster id: not URL-safe base64");
        }
    }
}
