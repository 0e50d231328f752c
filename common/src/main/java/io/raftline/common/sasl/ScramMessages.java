package io.raftline.common.sasl;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/** The text of SCRAM's messages (RFC 5802 section 7): attribute=value pairs separated by commas. */
final class ScramMessages {

    private static final SecureRandom RANDOM = new SecureRandom();

    private ScramMessages() {
    }

    /** Random nonces: 24 bytes of {@link SecureRandom}, base64 (printable, no comma). */
    static Supplier<String> randomNonces() {
        return () -> {
            byte[] b = new byte[24];
            RANDOM.nextBytes(b);
            return Base64.getEncoder().withoutPadding().encodeToString(b);
        };
    }

    static String text(byte[] message) throws ScramException {
        String s = new String(message, StandardCharsets.UTF_8);
        if (!java.util.Arrays.equals(s.getBytes(StandardCharsets.UTF_8), message)) {
            throw new ScramException("a SCRAM message must be UTF-8");
        }
        return s;
    }

    /**
     * The attributes of {@code text} in order, each a single letter then '=' (values may hold '='); {@code what} names
     * the message in errors.
     */
    static Map<Character, String> attributes(String text, String what) throws ScramException {
        Map<Character, String> out = new LinkedHashMap<>();
        for (String pair : text.split(",", -1)) {
            if (pair.length() < 2 || pair.charAt(1) != '=' || !Character.isLetter(pair.charAt(0))) {
                throw new ScramException("malformed SCRAM " + what + ": '" + abbreviate(pair) + "' is not attr=value");
            }
            if (out.putIfAbsent(pair.charAt(0), pair.substring(2)) != null) {
                throw new ScramException("malformed SCRAM " + what + ": attribute " + pair.charAt(0) + " twice");
            }
        }
        return out;
    }

    static String required(Map<Character, String> attributes, char name, String what) throws ScramException {
        String v = attributes.get(name);
        if (v == null || v.isEmpty()) {
            throw new ScramException("malformed SCRAM " + what + ": no " + name + "= attribute");
        }
        return v;
    }

    static byte[] base64(String value, String what) throws ScramException {
        try {
            return Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw new ScramException("malformed SCRAM " + what + ": not base64");
        }
    }

    static String encode(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** A saslname (RFC 5802 5.1): ',' and '=' as =2C and =3D. */
    static String saslName(String username) {
        return username.replace("=", "=3D").replace(",", "=2C");
    }

    static String username(String saslName) throws ScramException {
        StringBuilder out = new StringBuilder(saslName.length());
        for (int i = 0; i < saslName.length(); i++) {
            char c = saslName.charAt(i);
            if (c == '=') {
                if (saslName.startsWith("=2C", i)) {
                    out.append(',');
                } else if (saslName.startsWith("=3D", i)) {
                    out.append('=');
                } else {
                    throw new ScramException("malformed SCRAM user name: '=' must be =2C or =3D");
                }
                i += 2;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
