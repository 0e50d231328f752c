package io.raftline.cli.console;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;

/**
 * {@code consume --value-format}: how bytes become text. {@code utf8} decodes (a malformed sequence becomes U+FFFD);
 * {@code base64} and {@code hex} print any bytes safely, one token without separators.
 */
public enum Encoding {
    utf8, base64, hex;

    /** The bytes as text in this encoding; null stays null. */
    public String encode(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        return switch (this) {
            case utf8 -> new String(bytes, StandardCharsets.UTF_8);
            case base64 -> Base64.getEncoder().encodeToString(bytes);
            case hex -> HexFormat.of().formatHex(bytes);
        };
    }
}
