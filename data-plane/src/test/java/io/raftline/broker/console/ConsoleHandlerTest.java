package io.raftline.broker.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.raftline.broker.metrics.MetricsServer;
import io.raftline.common.SystemTime;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The console's HTTP edge on a real listener: pages and assets from the jar, JSON errors for bad paths and
 * parameters, and admin actions refused (403, before anything reaches the cluster) when admin is off or the CSRF
 * token is missing or wrong. No cluster: a request that gets past those checks meets "no broker known" (503).
 */
@Timeout(60)
class ConsoleHandlerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private MetricsServer server;
    private ConsoleHandler console;

    private String start(boolean adminEnabled) throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        server = new MetricsServer(new InetSocketAddress("127.0.0.1", 0), registry, () -> null);
        console = new ConsoleHandler(7, adminEnabled, registry, () -> null, SystemTime.INSTANCE);
        server.addContext("/ui", console);
        server.start();
        return "http://127.0.0.1:" + server.port();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
            console.close();
        }
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> postForm(String url, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String error(HttpResponse<String> r) throws Exception {
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        JsonNode doc = JSON.readTree(r.body());
        return doc.path("error").asText();
    }

    @Test
    void servesThePageItsAssetsAndUplotFromTheJar() throws Exception {
        String base = start(false);
        HttpResponse<String> page = get(base + "/ui/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("/ui/assets/console.js", "/ui/vendor/uPlot.iife.min.js");
        assertThat(get(base + "/ui/assets/console.js").body()).contains("/ui/api/summary", "/ui/api/topics");
        HttpResponse<String> uplot = get(base + "/ui/vendor/uPlot.iife.min.js");
        assertThat(uplot.statusCode()).isEqualTo(200);
        assertThat(uplot.body()).contains("uPlot");
        assertThat(get(base + "/ui/vendor/uPlot.min.css").statusCode()).isEqualTo(200);
        HttpResponse<String> redirect = get(base + "/ui");
        assertThat(redirect.statusCode()).isEqualTo(301);
        assertThat(redirect.headers().firstValue("Location")).hasValue("/ui/");
        assertThat(get(base + "/metrics").statusCode()).isEqualTo(200);
    }

    @Test
    void badPathsAndParametersAreOneClearJsonError() throws Exception {
        String base = start(false);
        HttpResponse<String> r = get(base + "/ui/api/topics/bad%20name");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r)).contains("invalid topic name 'bad name'");
        r = get(base + "/ui/api/topics/t/partitions/x");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r)).contains("invalid partition 'x'");
        r = get(base + "/ui/assets/../../../etc/passwd");
        assertThat(r.statusCode()).isBetween(400, 404);
        r = get(base + "/ui/api/records?topic=t");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r)).isEqualTo("missing parameter 'partition'");
        r = get(base + "/ui/api/records?topic=t&partition=0&limit=9999");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r)).contains("must be from 1 to 500");
        r = get(base + "/ui/api/records?topic=t&partition=0&time=yesterday");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r)).contains("invalid time 'yesterday'");
        r = get(base + "/ui/api/nope");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.body()).doesNotContain("Exception", "\tat ");
    }

    @Test
    void readOnlyByDefault() throws Exception {
        String base = start(false);
        JsonNode session = JSON.readTree(get(base + "/ui/api/session").body());
        assertThat(session.path("adminEnabled").asBoolean()).isFalse();
        assertThat(session.has("csrfToken")).isFalse();
        HttpResponse<String> r = postForm(base + "/ui/api/admin/create-topic", "topic=t&partitions=1&replicationFactor=1");
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(error(r)).contains("console.admin.enabled=false");
    }

    @Test
    void adminFormsNeedTheCsrfToken() throws Exception {
        String base = start(true);
        JsonNode session = JSON.readTree(get(base + "/ui/api/session").body());
        assertThat(session.path("adminEnabled").asBoolean()).isTrue();
        String token = session.path("csrfToken").asText();
        assertThat(token).hasSizeGreaterThan(30);

        HttpResponse<String> r = postForm(base + "/ui/api/admin/create-topic", "topic=t&partitions=1");
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(error(r)).isEqualTo("missing CSRF token");
        r = postForm(base + "/ui/api/admin/create-topic", "topic=t&partitions=1&csrf=" + token.substring(1) + "x");
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(error(r)).isEqualTo("wrong CSRF token");
        r = http.send(HttpRequest.newBuilder(URI.create(base + "/ui/api/admin/create-topic")).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(415);
        r = postForm(base + "/ui/api/admin/create-topic", "topic=bad%20name&csrf=" + token);
        assertThat(r.statusCode()).isEqualTo(400);
        // past the checks, the request reaches the cluster (none here)
        r = postForm(base + "/ui/api/admin/create-topic", "topic=t&partitions=1&csrf=" + token);
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(error(r)).contains("no broker is known");
        r = postForm(base + "/ui/api/admin/reset-offsets", "group=g&topic=t&to=sideways&csrf=" + token);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r)).contains("must be one of earliest, latest, offset");
    }
}
