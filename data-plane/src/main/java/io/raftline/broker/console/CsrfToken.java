package io.raftline.broker.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The token every admin form of this node's console carries (the synchronizer-token pattern): random per process,
 * handed to the console's own page by {@code GET /ui/api/session}, which another site's page cannot read (no CORS),
 * and compared in constant time on every admin request.
 */
public final class CsrfToken {

    private final String value;

    public CsrfToken(SecureRandom random) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        this.value = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    public String value() {
        return value;
    }

    /** True when {@code presented} is this token. */
    public boolean matches(String presented) {
        return presented != null && MessageDigest.isEqual(value.getBytes(StandardCharsets.UTF_8),
            presented.getBytes(StandardCharsets.UTF_8));
    }
}
