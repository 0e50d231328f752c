package io.raftline.broker.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.raftline.common.tls.SecurityConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The node's HTTP endpoint on {@code metrics.listener}: {@code /metrics} (Prometheus text), {@code /health}
 * (200 while the process is up) and {@code /ready} (200 once the node has caught up with the metadata and, for
 * a broker, is unfenced; 503 with the reason otherwise), and whatever else the node adds with {@link #addContext}
 * (the web console under {@code /ui/}). A few threads serve it, so that a console page waiting on the cluster never
 * holds up a scrape.
 */
public final class MetricsServer implements AutoCloseable {

    /** Threads serving requests: a scrape and the console's reads of the cluster may run at once. */
    static final int THREADS = 4;

    private final HttpServer server;

    public MetricsServer(InetSocketAddress address, PrometheusMeterRegistry registry, Supplier<String> notReadyReason)
        throws IOException {
        this(address, registry, notReadyReason, null, SecurityConfig.ClientAuth.NONE);
    }

    /**
     * With {@code tls} non-null, HTTPS: every path asks for client certificates as {@code clientAuth} says (the
     * node's {@code ssl.client.auth}).
     */
    public MetricsServer(InetSocketAddress address, PrometheusMeterRegistry registry, Supplier<String> notReadyReason,
                         SSLContext tls, SecurityConfig.ClientAuth clientAuth) throws IOException {
        server = tls == null ? HttpServer.create(address, 16) : https(address, tls, clientAuth);
        server.setExecutor(Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "metrics-http");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/metrics", reading(exchange -> respond(exchange, 200, registry.scrape(),
            "text/plain; version=0.0.4; charset=utf-8")));
        server.createContext("/health", reading(exchange -> respond(exchange, 200, "ok\n", "text/plain")));
        server.createContext("/ready", reading(exchange -> {
            String reason = notReadyReason.get();
            if (reason == null) {
                respond(exchange, 200, "ready\n", "text/plain");
            } else {
                respond(exchange, 503, "not ready: " + reason + "\n", "text/plain");
            }
        }));
    }

    /** {@code handler} for GET and HEAD; any other method is 405 (these paths only read). */
    private static HttpHandler reading(HttpHandler handler) {
        return exchange -> {
            String method = exchange.getRequestMethod();
            if (method.equals("GET") || method.equals("HEAD")) {
                handler.handle(exchange);
            } else {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                respond(exchange, 405, "method " + method + " not allowed: GET or HEAD\n", "text/plain");
            }
        };
    }

    private static HttpsServer https(InetSocketAddress address, SSLContext tls, SecurityConfig.ClientAuth clientAuth)
        throws IOException {
        HttpsServer https = HttpsServer.create(address, 16);
        https.setHttpsConfigurator(new HttpsConfigurator(tls) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters ssl = tls.getDefaultSSLParameters();
                // one call only: each of the two setters clears what the other set
                if (clientAuth == SecurityConfig.ClientAuth.REQUIRED) {
                    ssl.setNeedClientAuth(true);
                } else {
                    ssl.setWantClientAuth(clientAuth == SecurityConfig.ClientAuth.REQUESTED);
                }
                params.setSSLParameters(ssl);
            }
        });
        return https;
    }

    /** Serves {@code path} and everything under it with {@code handler}. */
    public void addContext(String path, HttpHandler handler) {
        server.createContext(path, handler);
    }

    public void start() {
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void respond(HttpExchange exchange, int status, String body, String contentType) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            if (!head) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
