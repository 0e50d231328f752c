package io.raftline.broker.console;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a request to {@code /ui/...} asks for, decided from its method and path alone: a page or asset, a read of
 * the cluster ({@code /ui/api/...}), or an admin action ({@code POST /ui/api/admin/...}). A path that names nothing
 * is 404, a known path with the wrong method 405, a malformed topic name, group id or partition 400; the message
 * says which. Pure: no I/O.
 *
 * @param kind what is asked
 * @param status 200 when routed, else the HTTP status to answer with {@code error}
 * @param params the values taken from the path ({@code topic}, {@code partition}, {@code group}, {@code asset})
 */
public record ConsoleRoute(Kind kind, int status, String error, Map<String, String> params) {

    /** What a request asks for. */
    public enum Kind {
        REDIRECT_ROOT, PAGE, ASSET, VENDOR, SESSION, OVERVIEW, SUMMARY, TOPICS, TOPIC, PARTITION, GROUP, METRICS, RECORDS,
        CREATE_TOPIC, ELECT_LEADER, RESET_OFFSETS, LOGIN, LOGOUT, ERROR
    }

    /** Kafka's topic name rule. */
    static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
    /** The console's own files, served from the jar. */
    static final Map<String, String> ASSETS = Map.of(
        "console.js", "text/javascript; charset=utf-8",
        "console.css", "text/css; charset=utf-8");
    /** uPlot's files in its WebJar. */
    static final Map<String, String> VENDOR = Map.of(
        "uPlot.iife.min.js", "text/javascript; charset=utf-8",
        "uPlot.min.css", "text/css; charset=utf-8");
    static final int MAX_GROUP_ID_CHARS = 255;

    public ConsoleRoute {
        params = Map.copyOf(params);
    }

    static ConsoleRoute ok(Kind kind, Map<String, String> params) {
        return new ConsoleRoute(kind, 200, null, params);
    }

    static ConsoleRoute error(int status, String message) {
        return new ConsoleRoute(Kind.ERROR, status, message, Map.of());
    }

    public boolean isAdmin() {
        return kind == Kind.CREATE_TOPIC || kind == Kind.ELECT_LEADER || kind == Kind.RESET_OFFSETS;
    }

    /** Routes {@code method} and the raw (still percent-encoded) {@code rawPath}. */
    public static ConsoleRoute of(String method, String rawPath) {
        if (rawPath.equals("/ui")) {
            return get(method, Kind.REDIRECT_ROOT, Map.of());
        }
        if (!rawPath.startsWith("/ui/")) {
            return error(404, "no such page: " + rawPath);
        }
        List<String> segments;
        try {
            segments = segments(rawPath.substring("/ui/".length()));
        } catch (IllegalArgumentException e) {
            return error(400, "malformed path: " + e.getMessage());
        }
        if (segments.isEmpty() || segments.equals(List.of("index.html"))) {
            return get(method, Kind.PAGE, Map.of());
        }
        String first = segments.get(0);
        if (first.equals("assets") && segments.size() == 2 && ASSETS.containsKey(segments.get(1))) {
            return get(method, Kind.ASSET, Map.of("asset", segments.get(1)));
        }
        if (first.equals("vendor") && segments.size() == 2 && VENDOR.containsKey(segments.get(1))) {
            return get(method, Kind.VENDOR, Map.of("asset", segments.get(1)));
        }
        if (first.equals("api")) {
            return api(method, segments.subList(1, segments.size()));
        }
        return error(404, "no such page: " + rawPath);
    }

    private static ConsoleRoute api(String method, List<String> s) {
        String joined = String.join("/", s);
        switch (s.size()) {
            case 1:
                switch (joined) {
                    case "session": return get(method, Kind.SESSION, Map.of());
                    case "overview": return get(method, Kind.OVERVIEW, Map.of());
                    case "summary": return get(method, Kind.SUMMARY, Map.of());
                    case "topics": return get(method, Kind.TOPICS, Map.of());
                    case "login": return post(method, Kind.LOGIN);
                    case "logout": return post(method, Kind.LOGOUT);
                    case "metrics": return get(method, Kind.METRICS, Map.of());
                    case "records": return get(method, Kind.RECORDS, Map.of());
                    default: break;
                }
                break;
            case 2:
                if (s.get(0).equals("topics")) {
                    return topic(s.get(1), null, method);
                }
                if (s.get(0).equals("groups")) {
                    String group = s.get(1);
                    if (group.isEmpty() || group.length() > MAX_GROUP_ID_CHARS) {
                        return error(400, "invalid group id: must be 1 to " + MAX_GROUP_ID_CHARS + " characters");
                    }
                    return get(method, Kind.GROUP, Map.of("group", group));
                }
                if (s.get(0).equals("admin")) {
                    switch (s.get(1)) {
                        case "create-topic": return post(method, Kind.CREATE_TOPIC);
                        case "elect-leader": return post(method, Kind.ELECT_LEADER);
                        case "reset-offsets": return post(method, Kind.RESET_OFFSETS);
                        default: break;
                    }
                }
                break;
            case 4:
                if (s.get(0).equals("topics") && s.get(2).equals("partitions")) {
                    return topic(s.get(1), s.get(3), method);
                }
                break;
            default:
                break;
        }
        return error(404, "no such API: /ui/api/" + joined);
    }

    private static ConsoleRoute topic(String topic, String partition, String method) {
        String bad = topicError(topic);
        if (bad != null) {
            return error(400, bad);
        }
        if (partition == null) {
            return get(method, Kind.TOPIC, Map.of("topic", topic));
        }
        Integer p = partitionOrNull(partition);
        if (p == null) {
            return error(400, "invalid partition '" + partition + "': must be an integer from 0");
        }
        Map<String, String> params = new LinkedHashMap<>();
        params.put("topic", topic);
        params.put("partition", Integer.toString(p));
        return get(method, Kind.PARTITION, params);
    }

    /** Null when {@code topic} is a valid topic name, else why not. */
    static String topicError(String topic) {
        if (topic == null || topic.isEmpty()) {
            return "missing topic name";
        }
        if (!TOPIC.matcher(topic).matches()) {
            return "invalid topic name '" + topic + "': up to 249 of a-z, A-Z, 0-9, '.', '_', '-'";
        }
        return null;
    }

    /** The partition number, or null unless {@code s} is a decimal integer from 0 to Integer.MAX_VALUE. */
    static Integer partitionOrNull(String s) {
        if (s == null || s.isEmpty() || s.length() > 10 || !s.chars().allMatch(Character::isDigit)) {
            return null;
        }
        long v = Long.parseLong(s);
        return v > Integer.MAX_VALUE ? null : (int) v;
    }

    private static ConsoleRoute get(String method, Kind kind, Map<String, String> params) {
        if (!method.equals("GET") && !method.equals("HEAD")) {
            return error(405, method + " is not allowed here; use GET");
        }
        return ok(kind, params);
    }

    private static ConsoleRoute post(String method, Kind kind) {
        if (!method.equals("POST")) {
            return error(405, method + " is not allowed here; use POST");
        }
        return ok(kind, Map.of());
    }

    /** The decoded segments; a trailing slash adds none. Throws on bad percent-encoding or a dot segment. */
    static List<String> segments(String rest) {
        List<String> out = new ArrayList<>();
        if (rest.isEmpty()) {
            return out;
        }
        String[] parts = rest.split("/", -1);
        for (int i = 0; i < parts.length; i++) {
            if (parts[i].isEmpty() && i == parts.length - 1) {
                break;
            }
            String decoded = URLDecoder.decode(parts[i].replace("+", "%2B"), StandardCharsets.UTF_8);
            if (decoded.equals(".") || decoded.equals("..") || decoded.indexOf('/') >= 0 || decoded.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("segment '" + parts[i] + "'");
            }
            out.add(decoded);
        }
        return out;
    }
}
