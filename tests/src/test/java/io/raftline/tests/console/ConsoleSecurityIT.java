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
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
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

    /** An HTTPS client trusting the dev CA, with the certificate {@code files} name if any. */
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
        return session(http, null);
    }

    /**
     * The session document, sending {@code cookie} (a {@code Cookie} header value) when not null: the JDK's cookie
     * store does not send a cookie back to a host without a dot ({@code localhost}), so the tests carry it by hand.
     */
    private static JsonNode session(HttpClient http, String cookie) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(console("session")).timeout(Duration.ofSeconds(20));
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    /** Posts the create-topic form with the session's CSRF token, as the page does. */
    private static HttpResponse<String> createTopic(HttpClient http, String topic) throws Exception {
        return createTopic(http, null, topic);
    }

    private static HttpResponse<String> createTopic(HttpClient http, String cookie, String topic) throws Exception {
        return post(http, cookie, "admin/create-topic", "topic=" + topic + "&partitions=1&replicationFactor=1");
    }

    /** Posts {@code form} (URL-encoded fields) to {@code path} with the session's CSRF token (and {@code cookie}). */
    private static HttpResponse<String> post(HttpClient http, String cookie, String path, String form) throws Exception {
        String csrf = session(http, cookie).get("csrfToken").asText();
        HttpRequest.Builder b = HttpRequest.newBuilder(console(path)).timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form + "&csrf=" + csrf));
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void addUser(String name, String password) throws IOException {
        Path file = tmp.resolve(name + ".password");
        Files.writeString(file, password + "\n");
        Cli.Result r = cli.run("users", "add", "--name", name, "--password-file", file.toString(), "--command-config", adminConfig);
        assertThat(r.exitCode()).as(r.toString()).isZero();
    }

    /**
     * {@code create} (the create-topic form, as {@code principal}) is refused with 403 naming the missing ACL and
     * creates nothing; once the CLI grants {@code principal} CREATE on the topic, it creates the topic.
     */
    private static void refusedUntilGranted(String principal, String topic,
                                            java.util.concurrent.Callable<HttpResponse<String>> create) throws Exception {
        HttpResponse<String> forbidden = create.call();
        assertThat(forbidden.statusCode()).as(forbidden.body()).isEqualTo(403);
        assertThat(error(forbidden)).isEqualTo(principal + " is not authorized to CREATE the cluster or CREATE topic '" + topic + "'");
        assertThat(topics()).doesNotContain(topic);
        Cli.Result grant = cli.run("acls", "add", "--allow-principal", principal, "--operation", "create", "--topic", topic,
            "--command-config", adminConfig);
        assertThat(grant.exitCode()).as(grant.toString()).isZero();
        // the node's image holds the ACL a moment after the CLI returns
        HttpResponse<String> created = awaitNot(403, create, "the console to let " + principal + " create " + topic);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
        assertThat(topics()).contains(topic);
    }

    /** Waits (with a deadline) until {@code attempt} answers other than {@code status}; returns that answer. */
    private static HttpResponse<String> awaitNot(int status, java.util.concurrent.Callable<HttpResponse<String>> attempt,
                                                 String what) {
        @SuppressWarnings("unchecked")
        HttpResponse<String>[] last = new HttpResponse[1];
        TestCluster.await(() -> {
            try {
                last[0] = attempt.call();
                return last[0].statusCode() != status;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, SETTLE, what);
        return last[0];
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
        assertThat(error(unauthenticated)).isEqualTo("authentication required: show a client certificate or log in, over HTTPS");

        assertThat(session(app).get("principal").asText()).isEqualTo("User:app");
        refusedUntilGranted("User:app", topic, () -> createTopic(app, topic));
        // the grant was for that topic only
        HttpResponse<String> other = createTopic(app, "console-other");
        assertThat(other.statusCode()).as(other.body()).isEqualTo(403);
        assertThat(topics()).doesNotContain("console-other");
    }

    /**
     * A SCRAM user (made with the CLI, kept in the quorum) logs in with the console's form instead of a certificate: a
     * wrong password is 401, the right one gives an HttpOnly, SameSite=Strict, Secure session cookie; the session acts
     * as User:alice, under the same ACLs; after logout the same client is anonymous again.
     */
    @Test
    void aScramUserLogsInAndActsUnderItsAcls() throws Exception {
        String topic = "console-alice";
        addUser("alice", "alice-secret");
        HttpClient browser = client(new TlsFiles(null, null, cluster.tls().ca()));
        assertThat(session(browser).get("loginAvailable").asBoolean()).isTrue();
        HttpResponse<String> wrong = post(browser, null, "login", "username=alice&password=guess");
        assertThat(wrong.statusCode()).as(wrong.body()).isEqualTo(401);
        assertThat(error(wrong)).isEqualTo("authentication failed");
        assertThat(post(browser, null, "login", "username=nobody&password=alice-secret").statusCode()).isEqualTo(401);
        // the user reaches the node's image a moment after the CLI returns
        HttpResponse<String> in = awaitNot(401, () -> post(browser, null, "login", "username=alice&password=alice-secret"),
            "alice to log in");
        assertThat(in.statusCode()).as(in.body()).isEqualTo(200);
        String setCookie = in.headers().firstValue("Set-Cookie").orElseThrow();
        assertThat(setCookie).startsWith("raftline-console-session=")
            .contains("; HttpOnly", "; SameSite=Strict", "; Secure", "; Path=/ui");
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));
        assertThat(session(browser, cookie).get("principal").asText()).isEqualTo("User:alice");
        assertThat(session(browser, "raftline-console-session=forged").get("principal").asText()).isEqualTo("User:ANONYMOUS");

        refusedUntilGranted("User:alice", topic, () -> createTopic(browser, cookie, topic));

        assertThat(post(browser, cookie, "logout", "x=1").statusCode()).isEqualTo(200);
        assertThat(session(browser, cookie).get("principal").asText()).as("the session is gone").isEqualTo("User:ANONYMOUS");
        assertThat(createTopic(browser, cookie, "console-after-logout").statusCode()).isEqualTo(401);
        assertThat(topics()).doesNotContain("console-after-logout");
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
                && Chromium.text(driver, "node").contains("not signed in: admin actions are refused"),
                Duration.ofSeconds(30), "the console to say it has no certificate (header: " + header(driver) + ")");
            WebElement form = driver.findElement(By.id("create-topic-form"));
            form.findElement(By.name("topic")).sendKeys("console-from-browser");
            form.findElement(By.cssSelector("button[type=submit]")).click();
            String expected = "refused: 401 authentication required: show a client certificate or log in, over HTTPS";
            TestCluster.await(() -> Chromium.text(driver, "create-topic-form-result").equals(expected),
                Duration.ofSeconds(30), "the form to be refused with 401");
            Path shots = Path.of("target", "console");
            Files.createDirectories(shots);
            File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
            Files.copy(shot.toPath(), shots.resolve("refused-without-certificate.png"), StandardCopyOption.REPLACE_EXISTING);
            assertThat(topics()).doesNotContain("console-from-browser");

            // the login form: a SCRAM user signs in and the header says who the page acts as
            addUser("carol", "carol-secret");
            TestCluster.await(() -> {
                // the header re-renders on its refresh: an element found a moment ago may be gone or replaced; try again
                try {
                    if (Chromium.text(driver, "node").contains("as User:carol")) {
                        return true;
                    }
                    if (!driver.findElements(By.id("login-form")).isEmpty()) {
                        WebElement login = driver.findElement(By.id("login-form"));
                        login.findElement(By.name("username")).clear();
                        login.findElement(By.name("username")).sendKeys("carol");
                        login.findElement(By.name("password")).clear();
                        login.findElement(By.name("password")).sendKeys("carol-secret");
                        login.findElement(By.id("login-submit")).click();
                    }
                } catch (NoSuchElementException | StaleElementReferenceException e) {
                    return false;
                }
                return false;
            }, Duration.ofSeconds(30), "carol to log in through the form (header: " + header(driver) + ")");
            assertThat(driver.findElements(By.id("logout-submit"))).hasSize(1);
            File in = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
            Files.copy(in.toPath(), shots.resolve("logged-in.png"), StandardCopyOption.REPLACE_EXISTING);
        } finally {
            driver.quit();
        }
    }

    private static String header(WebDriver driver) {
        return Chromium.text(driver, "node");
    }
}
