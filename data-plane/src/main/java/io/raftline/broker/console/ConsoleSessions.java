package io.raftline.broker.console;

import io.raftline.common.Time;
import io.raftline.common.sasl.ScramCredential;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The console's login sessions for SCRAM users: a login checks the user's password against the SCRAM-SHA-512
 * credential in the metadata (the one the brokers check), and gives a random session id carried in a cookie that is
 * HttpOnly, SameSite=Strict, Secure over HTTPS, and lasts {@link #TTL_MS} from the login. At most
 * {@link #MAX_SESSIONS} live at once (the oldest goes first). Time is the injected clock's. Thread-safe.
 */
final class ConsoleSessions {

    static final String COOKIE = "raftline-console-session";
    static final long TTL_MS = 60 * 60 * 1000L;
    static final int MAX_SESSIONS = 1000;

    private record Session(String principal, long expiresAtMs) {
    }

    private final Time time;
    private final SecureRandom random;
    /** Session id -> session, oldest login first. */
    private final Map<String, Session> sessions = new LinkedHashMap<>();

    ConsoleSessions(Time time, SecureRandom random) {
        this.time = time;
        this.random = random;
    }

    /** Whether {@code password} is the one {@code stored} (a user's SCRAM credential, if it has one) was made from. */
    static boolean passwordMatches(Optional<ScramCredential> stored, String password) {
        if (stored.isEmpty() || password == null || password.isEmpty()) {
            return false; // an empty password is never a SCRAM password (and SCRAM would refuse to salt it)
        }
        ScramCredential c = stored.get();
        ScramCredential presented = ScramCredential.fromPassword(c.mechanism(), password, c.salt(), c.iterations());
        return MessageDigest.isEqual(c.storedKey(), presented.storedKey());
    }

    /** A new session for {@code principal}; returns its id. */
    synchronized String open(String principal) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        expire();
        if (sessions.size() >= MAX_SESSIONS) {
            Iterator<String> oldest = sessions.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
        sessions.put(id, new Session(principal, time.hiResMilliseconds() + TTL_MS));
        return id;
    }

    /** The principal of a live session, if {@code id} names one. */
    synchronized Optional<String> principal(String id) {
        if (id == null) {
            return Optional.empty();
        }
        Session s = sessions.get(id);
        if (s == null) {
            return Optional.empty();
        }
        if (time.hiResMilliseconds() >= s.expiresAtMs()) {
            sessions.remove(id);
            return Optional.empty();
        }
        return Optional.of(s.principal());
    }

    synchronized void close(String id) {
        if (id != null) {
            sessions.remove(id);
        }
    }

    private void expire() {
        long now = time.hiResMilliseconds();
        sessions.values().removeIf(s -> now >= s.expiresAtMs());
    }

    /** The session id in a {@code Cookie} request header, or null. */
    static String idFromCookies(String header) {
        if (header == null) {
            return null;
        }
        for (String part : header.split(";")) {
            String p = part.strip();
            if (p.startsWith(COOKIE + "=")) {
                String v = p.substring(COOKIE.length() + 1);
                return v.isEmpty() ? null : v;
            }
        }
        return null;
    }

    /** The {@code Set-Cookie} value for session {@code id} (null: one that ends the session in the browser). */
    static String setCookie(String id, boolean https) {
        String value = id == null ? "" : id;
        long maxAge = id == null ? 0 : TTL_MS / 1000;
        return COOKIE + "=" + value + "; Path=/ui; Max-Age=" + maxAge + "; HttpOnly; SameSite=Strict" + (https ? "; Secure" : "");
    }
}
