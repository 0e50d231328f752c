package io.raftline.broker.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpsExchange;
import io.micrometer.core.instrument.MeterRegistry;
import io.raftline.client.admin.ClusterOverview;
import io.raftline.client.common.TopicPartition;
import io.raftline.common.Time;
import io.raftline.grpc.TransportSecurity;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web console under {@code /ui/} on the node's HTTP listener: one page ({@code index.html}) with its script and
 * styles and uPlot from its WebJar, all served from the jar, and JSON under {@code /ui/api/}. Read-only unless
 * {@code console.admin.enabled=true}; every admin action is a form POST that must carry this node's
 * {@link CsrfToken} (field {@code csrf} or header {@code X-CSRF-Token}) and, on a secure node, come from a principal
 * (a client certificate, or a SCRAM user's {@link ConsoleSessions login session}) that the node's ACLs allow; the
 * decision is {@link ConsoleAccess}'s. Lists are sent a page at a time ({@link ConsoleViews}). Every refusal is a
 * JSON {@code {"error": "..."}} with a 4xx status and changes nothing, never a stack trace.
 */
public final class ConsoleHandler implements HttpHandler, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConsoleHandler.class);
    static final String UPLOT_VERSION = "1.6.30";
    static final int MAX_BODY_BYTES = 64 * 1024;
    static final int REFRESH_MS = 2000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final int nodeId;
    private final boolean adminEnabled;
    private final CsrfToken csrf;
    private final MeterRegistry registry;
    private final ConsoleBackend backend;
    private final Time time;
    private final ConsoleViews views = new ConsoleViews(JSON);
    private final ConsoleSecurity security;
    private final ConsoleSessions sessions;

    /**
     * @param bootstrap brokers of the cluster to ask ({@code host:port,...}); null or empty while none is known
     */
    public ConsoleHandler(int nodeId, boolean adminEnabled, MeterRegistry registry, Supplier<String> bootstrap, Time time) {
        this(nodeId, adminEnabled, registry, bootstrap, java.util.Map.of(), ConsoleSecurity.NONE, time);
    }

    /**
     * @param clientSecurity the client keys the console's own admin client connects with (TLS to the brokers)
     * @param security how admin actions are authenticated and authorized ({@link ConsoleAccess})
     */
    public ConsoleHandler(int nodeId, boolean adminEnabled, MeterRegistry registry, Supplier<String> bootstrap,
                          java.util.Map<String, String> clientSecurity, ConsoleSecurity security, Time time) {
        this.security = security;
        this.nodeId = nodeId;
        this.adminEnabled = adminEnabled;
        this.csrf = new CsrfToken(new SecureRandom());
        this.sessions = new ConsoleSessions(time, new SecureRandom());
        this.registry = registry;
        this.time = time;
        this.backend = new ConsoleBackend(bootstrap, "raftline-console-" + nodeId, clientSecurity, time);
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            ConsoleRoute route = ConsoleRoute.of(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath());
            try {
                serve(exchange, route);
            } catch (ConsoleException e) {
                error(exchange, e.status(), e.getMessage());
            } catch (RuntimeException e) {
                LOG.warn("console: {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
                error(exchange, 500, "internal error: " + e);
            }
        }
    }

    private void serve(HttpExchange exchange, ConsoleRoute route) throws IOException {
        if (route.kind() == ConsoleRoute.Kind.ERROR) {
            error(exchange, route.status(), route.error());
            return;
        }
        if (route.isAdmin()) {
            admin(exchange, route);
            return;
        }
        if (route.kind() == ConsoleRoute.Kind.LOGIN || route.kind() == ConsoleRoute.Kind.LOGOUT) {
            session(exchange, route);
            return;
        }
        FormData query = FormData.parse(exchange.getRequestURI().getRawQuery());
        switch (route.kind()) {
            case REDIRECT_ROOT -> {
                exchange.getResponseHeaders().set("Location", "/ui/");
                exchange.sendResponseHeaders(301, -1);
            }
            case PAGE -> resource(exchange, "index.html", "text/html; charset=utf-8");
            case ASSET -> resource(exchange, route.params().get("asset"), ConsoleRoute.ASSETS.get(route.params().get("asset")));
            case VENDOR -> vendor(exchange, route.params().get("asset"));
            case SESSION -> {
                ObjectNode o = JSON.createObjectNode().put("nodeId", nodeId).put("adminEnabled", adminEnabled)
                    .put("refreshMs", REFRESH_MS).put("principal", principal(exchange))
                    .put("authenticationRequired", security.authenticationRequired() || security.authorizerOn())
                    .put("certificate", !certificatePrincipal(exchange).equals(TransportSecurity.ANONYMOUS))
                    .put("loginAvailable", exchange instanceof HttpsExchange);
                if (adminEnabled) {
                    o.put("csrfToken", csrf.value());
                }
                json(exchange, 200, o);
            }
            case OVERVIEW -> json(exchange, 200, backend.overview());
            case SUMMARY -> json(exchange, 200, views.summary(backend.overview()));
            case TOPICS -> json(exchange, 200, views.topics(backend.overview(), query.optional("filter"), pageOffset(query),
                pageLimit(query)));
            case TOPIC -> json(exchange, 200, views.topic(backend.topic(backend.overview(), route.params().get("topic")),
                pageOffset(query), pageLimit(query)));
            case PARTITION -> json(exchange, 200, backend.partition(backend.overview(), route.params().get("topic"),
                Integer.parseInt(route.params().get("partition"))));
            case GROUP -> {
                ClusterOverview o = backend.overview();
                ClusterOverview.GroupView g = o.group(route.params().get("group"));
                if (g == null) {
                    throw new ConsoleException(404, "unknown group '" + route.params().get("group") + "'");
                }
                json(exchange, 200, g);
            }
            case METRICS -> {
                Map<String, Object> doc = new TreeMap<>();
                doc.put("nodeId", nodeId);
                doc.put("timeMs", time.milliseconds());
                doc.put("reading", ConsoleMetrics.read(registry));
                json(exchange, 200, doc);
            }
            case RECORDS -> json(exchange, 200, records(query));
            default -> throw new ConsoleException(404, "no such page");
        }
    }

    private static Long pageOffset(FormData query) {
        return query.longIn("offset", 0, Integer.MAX_VALUE, null);
    }

    private static Long pageLimit(FormData query) {
        return query.longIn("limit", 1, ConsolePage.MAX_LIMIT, null);
    }

    private RecordBrowser.Page records(FormData query) {
        String topic = query.required("topic");
        String bad = ConsoleRoute.topicError(topic);
        if (bad != null) {
            throw new ConsoleException(400, bad);
        }
        Long p = query.longIn("partition", 0, Integer.MAX_VALUE, null);
        if (p == null) {
            throw new ConsoleException(400, "missing parameter 'partition'");
        }
        int partition = p.intValue();
        Long offset = query.longIn("offset", 0, Long.MAX_VALUE, null);
        Long timestamp = timestamp(query.optional("time"));
        if (offset != null && timestamp != null) {
            throw new ConsoleException(400, "give 'offset' or 'time', not both");
        }
        int limit = query.longIn("limit", 1, RecordBrowser.MAX_LIMIT, 50L).intValue();
        String format = query.oneOf("format", "utf8", "utf8", "hex", "base64");
        backend.partition(backend.overview(), topic, partition);
        return new RecordBrowser(backend.bootstrap(), "raftline-console-" + nodeId + "-records", time)
            .read(new TopicPartition(topic, partition), offset, timestamp, limit, RecordBrowser.Encoding.of(format));
    }

    /** Epoch milliseconds or an ISO-8601 instant ({@code 2026-01-02T03:04:05Z}); null when absent. */
    static Long timestamp(String value) {
        if (value == null) {
            return null;
        }
        if (value.chars().allMatch(Character::isDigit) && value.length() <= 15) {
            return Long.parseLong(value);
        }
        try {
            return Instant.parse(value).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new ConsoleException(400, "invalid time '" + value + "': epoch milliseconds or ISO-8601 such as "
                + "2026-01-02T03:04:05Z");
        }
    }

    /**
     * Who the request is from: its client certificate's principal, else the principal of its login session, else
     * {@code User:ANONYMOUS}.
     */
    private String principal(HttpExchange exchange) {
        String fromCertificate = certificatePrincipal(exchange);
        if (!fromCertificate.equals(TransportSecurity.ANONYMOUS)) {
            return fromCertificate;
        }
        return sessions.principal(ConsoleSessions.idFromCookies(exchange.getRequestHeaders().getFirst("Cookie")))
            .orElse(TransportSecurity.ANONYMOUS);
    }

    private String certificatePrincipal(HttpExchange exchange) {
        return security.principalOf().apply(exchange instanceof HttpsExchange https ? https.getSSLSession() : null);
    }

    /** The posted form (415 unless it is one). */
    private static FormData postedForm(HttpExchange exchange) throws IOException {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
            throw new ConsoleException(415, "admin actions take a form (application/x-www-form-urlencoded)");
        }
        return FormData.parse(body(exchange));
    }

    /** Null when the form (field {@code csrf}) or the {@code X-CSRF-Token} header carries this node's token; else why not. */
    private String csrfError(HttpExchange exchange, FormData form) {
        String token = form.optional("csrf");
        if (token == null) {
            token = exchange.getRequestHeaders().getFirst("X-CSRF-Token");
        }
        return csrf.matches(token) ? null : token == null ? "missing CSRF token" : "wrong CSRF token";
    }

    /**
     * Login (a SCRAM user's name and password, checked against the user's SCRAM-SHA-512 credential in the metadata)
     * and logout; both need the CSRF token, and login needs HTTPS (the password crosses the network).
     */
    private void session(HttpExchange exchange, ConsoleRoute route) throws IOException {
        FormData form = postedForm(exchange);
        String bad = csrfError(exchange, form);
        if (bad != null) {
            throw new ConsoleException(403, bad);
        }
        boolean https = exchange instanceof HttpsExchange;
        String host = exchange.getRemoteAddress().getAddress().getHostAddress();
        if (route.kind() == ConsoleRoute.Kind.LOGOUT) {
            sessions.close(ConsoleSessions.idFromCookies(exchange.getRequestHeaders().getFirst("Cookie")));
            exchange.getResponseHeaders().add("Set-Cookie", ConsoleSessions.setCookie(null, https));
            json(exchange, 200, JSON.createObjectNode().put("ok", true));
            return;
        }
        if (!https) {
            throw new ConsoleException(403, "log in over HTTPS only (metrics.listener.security.protocol=SSL)");
        }
        String user = form.required("username");
        if (!ConsoleSessions.passwordMatches(security.scramCredential().apply(user), form.optional("password"))) {
            LOG.info("console: failed login as '{}' from {}", user, host);
            throw new ConsoleException(401, "authentication failed");
        }
        String principal = "User:" + user;
        exchange.getResponseHeaders().add("Set-Cookie", ConsoleSessions.setCookie(sessions.open(principal), true));
        LOG.info("console: {} logged in from {}", principal, host);
        json(exchange, 200, JSON.createObjectNode().put("ok", true).put("principal", principal));
    }

    private void admin(HttpExchange exchange, ConsoleRoute route) throws IOException {
        if (!adminEnabled) {
            throw new ConsoleException(403, "admin actions are disabled on this node (console.admin.enabled=false)");
        }
        FormData form = postedForm(exchange);
        String csrfError = csrfError(exchange, form);
        String principal = principal(exchange);
        String host = exchange.getRemoteAddress().getAddress().getHostAddress();
        List<ConsoleAccess.Need> needs = ConsoleAccess.needs(route.kind(), Objects.requireNonNullElse(form.optional("topic"), ""),
            Objects.requireNonNullElse(form.optional("group"), ""));
        ConsoleAccess.Decision decision = ConsoleAccess.decide(adminEnabled, csrfError, security.authenticationRequired(),
            security.authorizerOn(), principal, needs,
            check -> security.acls().allowed(principal, host, check.operation(), check.type(), check.name()));
        if (!decision.allowed()) {
            LOG.info("console: refused {} from {} at {}: {}", route.kind(), principal, host, decision.error());
            throw new ConsoleException(decision.status(), decision.error());
        }
        LOG.info("console: {} at {} runs {} ({})", principal, host, route.kind(), form.without("csrf"));
        ObjectNode ok = JSON.createObjectNode().put("ok", true);
        switch (route.kind()) {
            case CREATE_TOPIC -> {
                String topic = form.required("topic");
                String bad = ConsoleRoute.topicError(topic);
                if (bad != null) {
                    throw new ConsoleException(400, bad);
                }
                int partitions = form.longIn("partitions", 1, 100_000, 1L).intValue();
                short rf = form.longIn("replicationFactor", 1, Short.MAX_VALUE, 1L).shortValue();
                backend.createTopic(topic, partitions, rf);
                ok.put("topic", topic).put("partitions", partitions).put("replicationFactor", rf);
            }
            case ELECT_LEADER -> {
                String topic = validTopic(form.required("topic"));
                int partition = form.longIn("partition", 0, Integer.MAX_VALUE, 0L).intValue();
                backend.electPreferredLeader(topic, partition);
                ok.put("topic", topic).put("partition", partition).put("type", "preferred");
            }
            case RESET_OFFSETS -> {
                String group = form.required("group");
                String topic = validTopic(form.required("topic"));
                String to = form.oneOf("to", null, "earliest", "latest", "offset");
                if (to == null) {
                    throw new ConsoleException(400, "missing parameter 'to' (earliest, latest or offset)");
                }
                Long offset = form.longIn("offset", 0, Long.MAX_VALUE, null);
                if (to.equals("offset") && offset == null) {
                    throw new ConsoleException(400, "missing parameter 'offset' for to=offset");
                }
                Map<TopicPartition, Long> set = backend.resetOffsets(group, topic, to, offset);
                ObjectNode offsets = ok.put("group", group).put("topic", topic).putObject("offsets");
                new TreeMap<>(set).forEach((tp, o) -> offsets.put(Integer.toString(tp.partition()), o));
            }
            default -> throw new ConsoleException(404, "no such action");
        }
        json(exchange, 200, ok);
    }

    private static String validTopic(String topic) {
        String bad = ConsoleRoute.topicError(topic);
        if (bad != null) {
            throw new ConsoleException(400, bad);
        }
        return topic;
    }

    private static String body(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
            if (bytes.length > MAX_BODY_BYTES) {
                throw new ConsoleException(413, "form larger than " + MAX_BODY_BYTES + " bytes");
            }
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    private void resource(HttpExchange exchange, String name, String type) throws IOException {
        send(exchange, 200, classpath("io/raftline/broker/console/" + name), type, "no-cache");
    }

    private void vendor(HttpExchange exchange, String name) throws IOException {
        send(exchange, 200, classpath("META-INF/resources/webjars/uplot/" + UPLOT_VERSION + "/dist/" + name),
            ConsoleRoute.VENDOR.get(name), "max-age=86400");
    }

    private static byte[] classpath(String path) throws IOException {
        try (InputStream in = ConsoleHandler.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new ConsoleException(404, "not packaged: " + path);
            }
            return in.readAllBytes();
        }
    }

    private static void json(HttpExchange exchange, int status, Object doc) throws IOException {
        send(exchange, status, JSON.writeValueAsBytes(doc), "application/json; charset=utf-8", "no-store");
    }

    private static void error(HttpExchange exchange, int status, String message) throws IOException {
        json(exchange, status, JSON.createObjectNode().put("error", message));
    }

    private static void send(HttpExchange exchange, int status, byte[] body, String type, String cache) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", cache);
        exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        exchange.getResponseHeaders().set("X-Frame-Options", "DENY");
        exchange.getResponseHeaders().set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        backend.close();
    }
}
