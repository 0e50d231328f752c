package io.raftline.tests.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.raftline.cli.command.dev.DevTls;
import io.raftline.common.tls.DevCertificates;
import io.raftline.common.tls.TlsFiles;
import io.raftline.common.tls.TlsMaterial;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The console's admin actions on a cluster set up as {@code raftline dev --tls} does (mTLS, {@code authorizer.enabled},
 * no ACL means no access), with {@code console.admin.enabled=true} and the metrics listener asking for client
 * certificates ({@code ssl.client.auth=requested}, so that a client without one reaches the console at all). A real
 * HTTPS client posts the create-topic form as the page does: without a certificate it is refused with 401, as a
 * principal without the ACL with 403, and nothing is created; once the CLI grants that principal CREATE on the topic,
 * the same form creates it.
 */
@Timeout(300)
class ConsoleSecurityIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SETTLE = Duration.ofSeconds(60);
    private static TestCluster cluster;
    private static Cli cli;
    private static String adminConfig;
    private static HttpClient anonymous;
    private static HttpClient app;

    @TempDir
    static Path tmp;

    @BeforeAll
    static void start() {
        cluster = TestCluster.builder().combined(1).tls().config("console.admin.enabled", "true")
            .config("ssl.client.auth", "requested").start();
        cli = new Cli(cluster.bootstrap());
        DevTls tls = cluster.tls();
        adminConfig = tls.clientProperties().toString();
        Path appDir = tmp.resolve("app");
        DevCertificates.loadCa(tls.ca().getParent()).issue("app", List.of(), List.of(), appDir, Instant.now(),
            Duration.ofDays(1));
        anonymous = client(new TlsFiles(null, null, tls.ca()));
        app = client(new TlsFiles(appDir.resolve("app.pem"), appDir.resolve("app.key"), tls.ca()));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static HttpClient client(TlsFiles files) {
        TlsMaterial m = TlsMaterial.load(files, Instant.now());
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(m.keyManager() == null ? null : new KeyManager[] {m.keyManager()},
                new TrustManager[] {m.trustManager()}, null);
            return HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(10)).build();
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static URI console(String path) {
        return URI.create("https://localhost:" + cluster.node(1).metricsPort() + "/ui/api/" + path);
    }

    private static JsonNode session(HttpClient http) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(console("session")).timeout(Duration.ofSeconds(20)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    /** Posts the create-topic form with the session's CSRF token, as the page does. */
    private static HttpResponse<String> createTopic(HttpClient http, String topic) throws Exception {
        String csrf = session(http).get("csrfToken").asText();
        return http.send(HttpRequest.newBuilder(console("admin/create-topic")).timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString("topic=" + topic + "&partitions=1&replicationFactor=1&csrf=" + csrf))
            .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String error(HttpResponse<String> r) throws IOException {
        return JSON.readTree(r.body()).path("error").asText();
    }

    private static String topics() {
        Cli.Result r = cli.run("topics", "list", "--command-config", adminConfig);
        assertThat(r.exitCode()).as(r.toString()).isZero();
        return r.out();
    }

    @Test
    void adminActionsNeedACertificateAndTheCliAcl() throws Exception {
        String topic = "console-secure";
        JsonNode nobody = session(anonymous);
        assertThat(nobody.get("principal").asText()).isEqualTo("User:ANONYMOUS");
        assertThat(nobody.get("authenticationRequired").asBoolean()).isTrue();
        HttpResponse<String> unauthenticated = createTopic(anonymous, topic);
        assertThat(unauthenticated.statusCode()).as(unauthenticated.body()).isEqualTo(401);
        assertThat(error(unauthenticated)).isEqualTo("authentication required: open the console over HTTPS with a client certificate");

        assertThat(session(app).get("principal").asText()).isEqualTo("User:app");
        HttpResponse<String> forbidden = createTopic(app, topic);
        assertThat(forbidden.statusCode()).as(forbidden.body()).isEqualTo(403);
        assertThat(error(forbidden)).isEqualTo("User:app is not authorized to CREATE the cluster or CREATE topic '" + topic + "'");
        assertThat(topics()).doesNotContain(topic);

        Cli.Result grant = cli.run("acls", "add", "--allow-principal", "User:app", "--operation", "create", "--topic", topic,
            "--command-config", adminConfig);
        assertThat(grant.exitCode()).as(grant.toString()).isZero();
        // the node's image holds the ACL a moment after the CLI returns
        int[] status = {0};
        String[] body = {null};
        TestCluster.await(() -> {
            try {
                HttpResponse<String> r = createTopic(app, topic);
                status[0] = r.statusCode();
                body[0] = r.body();
                return status[0] != 403;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, SETTLE, "the console to let User:app create " + topic + " once the ACL is in");
        assertThat(status[0]).as(body[0]).isEqualTo(200);
        assertThat(topics()).contains(topic);
        // the grant was for that topic only
        HttpResponse<String> other = createTopic(app, "console-other");
        assertThat(other.statusCode()).as(other.body()).isEqualTo(403);
        assertThat(topics()).doesNotContain("console-other");
    }

    /**
     * Chromium (headless, with no certificate to show; the dev CA is not in its trust store, hence the flag) opens the
     * console: the header says admin actions will be refused, and the create-topic form is refused with 401.
     */
    @Test
    void aBrowserWithoutACertificateIsRefused() throws Exception {
        Optional<String> missing = Chromium.missing();
        Assumptions.assumeTrue(missing.isEmpty(), () -> "no browser: " + missing.orElse(""));
        WebDriver driver = Chromium.start(Files.createTempDirectory(tmp, "chromium-"), "--ignore-certificate-errors");
        try {
            driver.get("https://localhost:" + cluster.node(1).metricsPort() + "/ui/#/topics");
            TestCluster.await(() -> !driver.findElements(By.id("create-topic-form")).isEmpty()
                && driver.findElement(By.id("node")).getText().contains("no client certificate: admin actions are refused"),
                Duration.ofSeconds(30), "the console to say it has no certificate (header: " + header(driver) + ")");
            WebElement form = driver.findElement(By.id("create-topic-form"));
            form.findElement(By.name("topic")).sendKeys("console-from-browser");
            form.findElement(By.cssSelector("button[type=submit]")).click();
            String expected = "refused: 401 authentication required: open the console over HTTPS with a client certificate";
            TestCluster.await(() -> driver.findElement(By.id("create-topic-form-result")).getText().equals(expected),
                Duration.ofSeconds(30), "the form to be refused with 401");
            Path shots = Path.of("target", "console");
            Files.createDirectories(shots);
            File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
            Files.copy(shot.toPath(), shots.resolve("refused-without-certificate.png"), StandardCopyOption.REPLACE_EXISTING);
            assertThat(topics()).doesNotContain("console-from-browser");
        } finally {
            driver.quit();
        }
    }

    private static String header(WebDriver driver) {
        return driver.findElements(By.id("node")).isEmpty() ? "none" : driver.findElement(By.id("node")).getText();
    }
}
