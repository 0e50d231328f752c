package io.raftline.broker.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.raftline.broker.metrics.MetricsServer;
import io.raftline.common.SystemTime;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Hostile HTTP requests, written byte for byte on a socket, to a node's metrics listener with the web console under
 * {@code /ui} (no cluster behind it): paths with traversal ({@code ../}, encoded and double-encoded), encoded bytes,
 * NULs, 10,000-character segments and query strings, under every context; any method (lower case and made-up ones
 * too); odd headers (bad and huge Content-Length, CSRF tokens, Transfer-Encoding). Each is answered with a status
 * line, never 500 or another 5xx but a 503 for a page that needs the cluster (or /ready), nor left unanswered; a
 * 2xx is one of the listener's own documents, never a file outside the console's resources; a method a path does not
 * serve is 405; and the listener answers /health afterwards.
 */
@Timeout(120)
class HostileHttpTest {

    private static final long SEED = 20261211L;

    private MetricsServer server;
    private ConsoleHandler console;

    @BeforeEach
    void start() throws IOException {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        server = new MetricsServer(new InetSocketAddress("127.0.0.1", 0), registry, () -> null);
        console = new ConsoleHandler(7, true, registry, () -> null, SystemTime.INSTANCE);
        server.addContext("/ui", console);
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
        console.close();
    }

    private static Gen<String> segments() {
        return Generate.pick(List.of("", ".", "..", "%2e%2e", "%2E%2E%2F", "..%2f", "%252e%252e", "..;", "%00", "%ff", "%",
                "%zz", "%c0%ae", "index.html", "console.js", "uPlot.iife.min.js", "assets", "vendor", "api", "topics",
                "groups", "records", "partitions", "0", "-1", "99999999999", "etc", "passwd", "META-INF", "MANIFEST.MF",
                "io", "raftline", "broker", "ConsoleHandler.class", "log4j2.xml", "WEB-INF", "\u00e9", "~", "*", "?", "#"))
            .mix(strings().basicLatinAlphabet().ofLengthBetween(0, 12).map(s -> s.replace(" ", "%20")), 15)
            .mix(Generate.constant("x".repeat(10_000)), 2);
    }

    private static Gen<String> paths() {
        Gen<String> roots = Generate.pick(List.of("/ui/", "/ui", "/ui/assets/", "/ui/vendor/", "/ui/api/", "/ui/api/topics/",
            "/ui/api/groups/", "/metrics", "/metrics/", "/health", "/health/", "/ready", "/", "//", "/ui//", "/healthz",
            "/ui/api/records"));
        Gen<String> query = Generate.pick(List.of("", "", "?", "?topic=..&partition=-1", "?topic=t&partition=99999999999",
            "?partition", "?topic=%zz", "?a=" + "b".repeat(10_000), "?topic=t&partition=0&offset=-5&max=2147483648"));
        return roots.zip(lists().of(segments()).ofSizeBetween(0, 5), query,
            (root, segs, q) -> root + String.join("/", segs) + q);
    }

    private static Gen<String> methods() {
        return Generate.pick(List.of("GET", "GET", "GET", "HEAD", "POST", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH",
            "get", "FOO", "CONNECT"));
    }

    private static Gen<String> headers() {
        return Generate.pick(List.of("", "X-CSRF-Token: nope\r\n", "Content-Type: application/x-www-form-urlencoded\r\n",
            "Content-Type: multipart/form-data; boundary=x\r\n", "Accept: */*\r\n", "Cookie: a=b\r\n",
            "X-Long: " + "h".repeat(8_000) + "\r\n", "Range: bytes=0-1\r\n", "Expect: 100-continue\r\n"));
    }

    /** A body and the Content-Length header sent with it (which may not match: short, negative, huge). */
    private static Gen<String[]> bodies() {
        return Generate.pick(List.of(new String[] {"", ""}, new String[] {"topic=t&partitions=1&csrf=x", "exact"},
            new String[] {"name=%zz&&&=", "exact"}, new String[] {"abc", "Content-Length: -1\r\n"},
            new String[] {"abc", "Content-Length: 99999999999\r\n"}, new String[] {"x".repeat(70_000), "exact"},
            new String[] {"", "Content-Length: 5\r\n"}));
    }

    @Test
    void everyRequestIsAnsweredWithoutA500AndNothingOutsideTheResourcesIsServed() {
        java.util.Set<Integer> seen = new java.util.TreeSet<>();
        qt().withFixedSeed(SEED).withExamples(600).withShrinkCycles(100)
            .forAll(methods(), paths(), headers(), bodies()).checkAssert((method, path, header, body) -> {
                Response r = send(method, path, header, body);
                seen.add(r.status());
                String what = method + " " + abbreviated(path) + " (" + abbreviated(header) + ")";
                assertThat(r.status()).as("status of %s", what).isBetween(200, 599);
                if (r.status() >= 500) {
                    assertThat(r.status()).as("a 5xx for %s: %s", what, abbreviated(r.body())).isEqualTo(503);
                    assertThat(path.startsWith("/ui/api/") || path.startsWith("/ready"))
                        .as("a 503 from a page that needs the cluster: %s", what).isTrue();
                }
                if (r.status() < 300) {
                    assertThat(r.body()).as("a document of the listener's own for %s", what)
                        .doesNotContain("Manifest-Version", "root:x:0:0", "\u00ca\u00fe\u00ba\u00be", "<Configuration");
                }
                boolean reads = method.equals("GET") || method.equals("HEAD");
                if (!reads && r.status() < 300) {
                    assertThat(path).as("%s changed something: only the console's admin forms take a POST", what)
                        .startsWith("/ui/api/");
                    assertThat(method).isEqualTo("POST");
                }
            });
        assertThat(seen).as("statuses answered").contains(200, 400, 404, 405);
        assertThat(send("GET", "/health", "", new String[] {"", ""}).status()).isEqualTo(200);
    }

    /** /metrics, /health and /ready read; any other method is 405, as the console answers it. */
    @Test
    void aMethodTheListenersOwnPathsDoNotServeIs405() {
        for (String path : List.of("/metrics", "/health", "/ready")) {
            for (String method : List.of("POST", "PUT", "DELETE", "PATCH", "FOO")) {
                assertThat(send(method, path, "", new String[] {"x", "exact"}).status()).as("%s %s", method, path)
                    .isEqualTo(405);
            }
            assertThat(send("HEAD", path, "", new String[] {"", ""}).status()).as("HEAD %s", path).isEqualTo(200);
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private record Response(int status, String body) {
    }

    private Response send(String method, String path, String header, String[] body) {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            String length = body[1].equals("exact") ? "Content-Length: " + body[0].getBytes(StandardCharsets.UTF_8).length
                + "\r\n" : body[1];
            String request = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + header + length
                + "\r\n" + body[0];
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            socket.shutdownOutput();
            byte[] answer = readAll(socket.getInputStream());
            String text = new String(answer, StandardCharsets.ISO_8859_1);
            while (text.startsWith("HTTP/1.1 1") && text.contains("\r\n\r\n")) {
                // an interim answer (100 Continue): the final one follows
                text = text.substring(text.indexOf("\r\n\r\n") + 4);
            }
            if (!text.startsWith("HTTP/1.1 ")) {
                throw new AssertionError("no status line for " + method + " " + abbreviated(path) + ": '" + abbreviated(text)
                    + "'");
            }
            int status = Integer.parseInt(text.substring(9, 12));
            int headersEnd = text.indexOf("\r\n\r\n");
            return new Response(status, headersEnd < 0 ? "" : text.substring(headersEnd + 4));
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no answer within 10 s for " + method + " " + abbreviated(path), e);
        } catch (IOException e) {
            throw new AssertionError("the connection failed for " + method + " " + abbreviated(path) + ": " + e, e);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try {
            for (int n; (n = in.read(buf)) > 0; ) {
                out.write(buf, 0, n);
            }
        } catch (java.net.SocketException reset) {
            // the server may reset after its answer when the request body was not read: keep what arrived
        }
        return out.toByteArray();
    }

    private static String abbreviated(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "... (" + s.length() + " chars)";
    }
}
