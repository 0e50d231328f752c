package io.raftline.tests.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.raftline.tests.cluster.Cli;
import io.raftline.tests.cluster.TestCluster;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * The web console in a real browser (Debian's headless Chromium through Selenium) against one real 3-node cluster,
 * checked against what the in-process CLI prints as JSON: the brokers and quorum, a topic's partitions with leader,
 * replicas, ISR, high watermark and log end offset, a partition's replicas, a group's lag per partition, the record
 * browser, the live charts; an admin form refused without the CSRF token and on a node with admin off; a killed
 * broker turning the topic's partitions under-replicated in the page. {@code raftline top} is checked against the
 * same cluster. Screenshots go to {@code target/console/}.
 *
 * <p>Node 1 runs with {@code console.admin.enabled=true}, node 3 with the key off (and is the broker killed last);
 * the browser looks at node 1's console.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleIT {

    private static final String TOPIC = "console-orders";
    private static final String GROUP = "console-billing";
    private static final int RECORDS = 60;
    private static final Duration PAGE = Duration.ofSeconds(20);
    private static final Path SHOTS = Path.of("target", "console");
    /** The rows of a table as the page shows them: data-* attributes, the row's class, and every c-* cell's text. */
    private static final String ROWS_JS = "return Array.from(document.querySelectorAll('#' + arguments[0] + ' tbody tr'))"
        + ".map(tr => { const o = {cls: tr.className}; for (const a of tr.attributes) { if (a.name.startsWith('data-')) "
        + "o[a.name] = a.value; } tr.querySelectorAll('td').forEach(td => { const c = Array.from(td.classList)"
        + ".find(x => x.startsWith('c-')); if (c) o[c] = td.textContent.trim(); }); return o; });";

    private static TestCluster cluster;
    private static Cli cli;
    private static WebDriver driver;
    private static String browserMissing;
    private static Path profile;

    @BeforeAll
    static void start() throws IOException {
        cluster = TestCluster.builder().combined(3).config("console.admin.enabled", "true")
            .nodeConfig(3, "console.admin.enabled", "false")
            .config("auto.leader.rebalance.enable", "false").config("replica.lag.time.max.ms", "3000").start();
        cli = new Cli(cluster.bootstrap());

        ok(cli.run("topics", "create", "--topic", TOPIC, "--partitions", "3", "--replication-factor", "3"));
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < RECORDS; i++) {
            lines.append("k").append(i).append(':').append("order-").append(i).append('\n');
        }
        ok(cli.runWithInput(lines.toString(), "produce", "--topic", TOPIC, "--key-separator", ":"));
        ok(cli.run("consume", "--topic", TOPIC, "--group", GROUP, "--from-beginning", "--max-messages", "10",
            "--timeout-ms", "30000"));

        Optional<String> missing = Chromium.missing();
        if (missing.isPresent()) {
            browserMissing = missing.get();
            System.out.println("ConsoleIT: browser tests skipped: " + browserMissing);
            return;
        }
        Files.createDirectories(SHOTS);
        profile = Files.createTempDirectory("raftline-chromium-");
        driver = Chromium.start(profile);
    }

    @AfterAll
    static void stop() {
        if (driver != null) {
            driver.quit();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void ok(Cli.Result r) {
        assertThat(r.exitCode()).as(r.toString()).isZero();
    }

    private static void needBrowser() {
        Assumptions.assumeTrue(browserMissing == null, () -> "no browser: " + browserMissing);
    }

    private static String console(int node) {
        return "http://127.0.0.1:" + cluster.node(node).metricsPort() + "/ui/";
    }

    private static void open(int node, String route) {
        driver.get(console(node) + "#/" + route);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> rows(String tableId) {
        Object r = ((JavascriptExecutor) driver).executeScript(ROWS_JS, tableId);
        return r == null ? List.of() : (List<Map<String, Object>>) r;
    }

    private static void screenshot(String name) throws IOException {
        File f = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Files.copy(f.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** Clicks the element with id {@code id}, finding it again if the page re-rendered it between the find and the click. */
    private static void click(String id) {
        TestCluster.await(() -> {
            try {
                driver.findElement(By.id(id)).click();
                return true;
            } catch (StaleElementReferenceException e) {
                return false;
            }
        }, PAGE, "a click on " + id);
    }

    /** Waits until {@code check} holds; on timeout fails with the last difference it reported. */
    private static void awaitPage(Supplier<String> difference, Duration timeout, String what) {
        String[] last = {null};
        try {
            TestCluster.await(() -> {
                last[0] = difference.get();
                return last[0] == null;
            }, timeout, what);
        } catch (AssertionError e) {
            String status = Chromium.text(driver, "status");
            try {
                screenshot("failed-" + what.replaceAll("[^a-zA-Z0-9]+", "-"));
            } catch (IOException | RuntimeException ignored) {
                // the failure below is what matters
            }
            throw new AssertionError(e.getMessage() + ": " + last[0] + " (page status: " + status + ")", e);
        }
    }

    private static String ids(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out.isEmpty() ? "–" : String.join(",", out);
    }

    private static String orDash(JsonNode n) {
        return n == null || n.isNull() ? "–" : n.asText();
    }

    /** The partition rows the CLI's {@code topics describe} prints, keyed by partition, in the page's cell names. */
    private static Map<String, Map<String, String>> describeRows() {
        JsonNode doc = cli.json("topics", "describe", "--topic", TOPIC);
        Map<String, Map<String, String>> out = new HashMap<>();
        for (JsonNode p : doc.get("topics").get(0).get("partitions")) {
            Map<String, String> row = new HashMap<>();
            row.put("c-leader", p.get("leader").asInt() < 0 ? "none" : p.get("leader").asText());
            row.put("c-replicas", ids(p.get("replicas")));
            row.put("c-isr", ids(p.get("isr")));
            row.put("c-osr", ids(p.get("osr")));
            row.put("c-hw", orDash(p.get("highWatermark")));
            row.put("c-leo", orDash(p.get("logEndOffset")));
            row.put("c-log-start", orDash(p.get("logStartOffset")));
            out.put(p.get("partition").asText(), row);
        }
        return out;
    }

    /** Null when the page's table {@code tableId} shows {@code expected} (by data-partition), else the difference. */
    private static String partitionsDiffer(String tableId, Map<String, Map<String, String>> expected) {
        Map<String, Map<String, Object>> shown = new HashMap<>();
        rows(tableId).forEach(r -> shown.put(String.valueOf(r.get("data-partition")), r));
        if (!shown.keySet().equals(expected.keySet())) {
            return "page shows partitions " + shown.keySet() + ", CLI " + expected.keySet();
        }
        for (var e : expected.entrySet()) {
            for (var cell : e.getValue().entrySet()) {
                Object got = shown.get(e.getKey()).get(cell.getKey());
                if (!cell.getValue().equals(got)) {
                    return "partition " + e.getKey() + " " + cell.getKey() + ": page " + got + ", CLI " + cell.getValue();
                }
            }
        }
        return null;
    }

    @Test
    @Order(1)
    void overviewShowsTheBrokersAndTheQuorumAsTheCliDoes() throws IOException {
        needBrowser();
        open(1, "overview");
        JsonNode brokers = cli.json("brokers", "list");
        JsonNode quorum = cli.json("quorum", "status");
        awaitPage(() -> {
            List<Map<String, Object>> rows = rows("brokers");
            if (rows.size() != brokers.get("brokers").size()) {
                return "page lists " + rows.size() + " brokers";
            }
            for (JsonNode b : brokers.get("brokers")) {
                Map<String, Object> row = rows.stream().filter(r -> b.get("id").asText().equals(r.get("data-broker")))
                    .findFirst().orElse(null);
                if (row == null || !b.get("state").asText().equals(row.get("c-state"))) {
                    return "broker " + b.get("id") + ": page " + row + ", CLI " + b;
                }
            }
            if (rows("voters").size() != quorum.get("voters").size()) {
                return "page lists " + rows("voters").size() + " voters";
            }
            String summary = Chromium.text(driver, "quorum-summary");
            return summary.startsWith("leader " + quorum.get("leaderId").asInt() + ", term ") ? null : "quorum: " + summary;
        }, PAGE, "the overview to show the CLI's brokers and quorum");
        assertThat(driver.findElement(By.tagName("h2")).getText()).isEqualTo("Cluster " + cluster.clusterId());
        long leaders = rows("brokers").stream().mapToLong(r -> Long.parseLong((String) r.get("c-leaders"))).sum();
        assertThat(leaders).as("leaderships over all brokers").isPositive();
        screenshot("overview");
    }

    @Test
    @Order(2)
    void topicPagesShowThePartitionsLeadersIsrAndOffsetsTheCliShows() throws IOException {
        needBrowser();
        open(1, "topics");
        awaitPage(() -> rows("topics").stream().anyMatch(r -> TOPIC.equals(r.get("data-topic")) && "3".equals(r.get("c-partitions"))
            && "3".equals(r.get("c-rf"))) ? null : "topics table: " + rows("topics"), PAGE, "the topics page to list " + TOPIC);
        screenshot("topics");
        open(1, "topic/" + TOPIC);
        awaitPage(() -> partitionsDiffer("partitions", describeRows()), PAGE, "the topic page to match topics describe");
        assertThat(rows("partitions")).allMatch(r -> "ok".equals(r.get("c-health")) && !"under-replicated".equals(r.get("cls")));
        long shownEnd = rows("partitions").stream().mapToLong(r -> Long.parseLong((String) r.get("c-leo"))).sum();
        assertThat(shownEnd).as("records over all partitions").isEqualTo(RECORDS);
        screenshot("topic");
    }

    /**
     * A topic of 150 partitions: a refresh of its page carries one page of 100 partitions, the next page the other
     * 50; the topics list filters by name; the API refuses a page larger than 1000 rows.
     */
    @Test
    @Order(2)
    void aTopicWithManyPartitionsIsReadOnePageAtATime() throws IOException {
        needBrowser();
        String wide = "console-wide";
        ok(cli.run("topics", "create", "--topic", wide, "--partitions", "150", "--replication-factor", "1"));
        open(1, "topic/" + wide);
        awaitPage(() -> {
            String range = Chromium.text(driver, "partitions-pager-range");
            boolean prev = Chromium.enabled(driver, "partitions-pager-prev");
            return range.equals("rows 1–100 of 150") && rows("partitions").size() == 100 && !prev ? null
                : "range '" + range + "', " + rows("partitions").size() + " rows, previous enabled " + prev;
        }, PAGE, "the first 100 of 150 partitions, no previous page");
        click("partitions-pager-next");
        awaitPage(() -> {
            List<Map<String, Object>> rows = rows("partitions");
            String range = Chromium.text(driver, "partitions-pager-range");
            boolean next = Chromium.enabled(driver, "partitions-pager-next");
            return range.equals("rows 101–150 of 150") && rows.size() == 50 && "100".equals(rows.get(0).get("data-partition"))
                && !next ? null : "range '" + range + "', " + rows.size() + " rows, next enabled " + next;
        }, PAGE, "the second page: partitions 100 to 149, no next page");
        screenshot("topic-second-page");
        // What the page read: one page, not the topic's 150 partitions.
        Object sent = ((JavascriptExecutor) driver).executeAsyncScript("const done = arguments[arguments.length - 1];"
            + "fetch('/ui/api/topics/" + wide + "').then(r => r.json()).then(b => done(b.partitions.length + ' of '"
            + " + b.partitionCount));");
        assertThat(String.valueOf(sent)).isEqualTo("100 of 150");
        Object tooMany = ((JavascriptExecutor) driver).executeAsyncScript("const done = arguments[arguments.length - 1];"
            + "fetch('/ui/api/topics/" + wide + "?limit=5000').then(r => r.json().then(b => done(r.status + ' ' + b.error)));");
        assertThat(String.valueOf(tooMany)).isEqualTo("400 invalid limit '5000': must be from 1 to 1000");

        open(1, "topics");
        awaitPage(() -> driver.findElements(By.id("topics-filter")).isEmpty() ? "no filter" : null, PAGE, "the topics filter");
        driver.findElement(By.id("topics-filter")).sendKeys("WIDE");
        driver.findElement(By.id("topics-filter-submit")).click();
        awaitPage(() -> {
            List<Map<String, Object>> rows = rows("topics");
            return rows.size() == 1 && wide.equals(rows.get(0).get("data-topic")) && "150".equals(rows.get(0).get("c-partitions"))
                ? null : "topics: " + rows;
        }, PAGE, "the filter to leave only " + wide);
        screenshot("topics-filtered");
        // the page keeps its filter while it stays open: clear it for the tests after this one
        driver.findElement(By.id("topics-filter")).clear();
        driver.findElement(By.id("topics-filter-submit")).click();
        awaitPage(() -> rows("topics").stream().anyMatch(r -> TOPIC.equals(r.get("data-topic"))) ? null : "topics: " + rows("topics"),
            PAGE, "every topic again once the filter is cleared");
        ok(cli.run("topics", "delete", "--topic", wide));
    }

    @Test
    @Order(3)
    void aPartitionPageShowsEachReplicasState() throws IOException {
        needBrowser();
        JsonNode p0 = cli.json("topics", "describe", "--topic", TOPIC).get("topics").get(0).get("partitions").get(0);
        open(1, "partition/" + TOPIC + "/0");
        awaitPage(() -> {
            List<Map<String, Object>> replicas = rows("replicas");
            if (replicas.size() != 3) {
                return "replicas: " + replicas;
            }
            for (Map<String, Object> r : replicas) {
                boolean leader = p0.get("leader").asText().equals(r.get("data-replica"));
                if (!(leader ? "leader" : "follower").equals(r.get("c-role")) || !"yes".equals(r.get("c-in-isr"))
                    || !"active".equals(r.get("c-state")) || !p0.get("logEndOffset").asText().equals(r.get("c-leo"))) {
                    return "replica " + r + " vs CLI " + p0;
                }
            }
            return null;
        }, PAGE, "the partition page to show three in-sync replicas at the leader's log end");
        screenshot("partition");
    }

    @Test
    @Order(4)
    void groupPagesShowTheLagTheCliShows() throws IOException {
        needBrowser();
        JsonNode group = cli.json("groups", "describe", "--group", GROUP);
        Map<String, String> lag = new HashMap<>();
        long total = 0;
        for (JsonNode o : group.get("offsets")) {
            lag.put(o.get("partition").asText(), orDash(o.get("lag")));
            total += o.get("lag").isNull() ? 0 : o.get("lag").asLong();
        }
        assertThat(total).as("the group's lag").isPositive();
        long expectedTotal = total;
        open(1, "groups");
        awaitPage(() -> rows("groups").stream().anyMatch(r -> GROUP.equals(r.get("data-group"))
                && Long.toString(expectedTotal).equals(r.get("c-lag")) && r.get("c-trend") != null) ? null : "groups: " + rows("groups"),
            PAGE, "the groups page to show the group's total lag");
        screenshot("groups");
        open(1, "group/" + GROUP);
        awaitPage(() -> {
            Map<String, String> shown = new HashMap<>();
            rows("offsets").forEach(r -> shown.put(String.valueOf(r.get("data-partition")), String.valueOf(r.get("c-lag"))));
            return shown.equals(lag) ? null : "page lag " + shown + ", CLI " + lag;
        }, PAGE, "the group page to show the lag per partition of groups describe");
        screenshot("group");
    }

    @Test
    @Order(5)
    void theRecordBrowserReadsByOffsetInUtf8AndHex() throws IOException {
        needBrowser();
        Cli.Result consumed = cli.run("consume", "--topic", TOPIC, "--partition", "0", "--offset", "earliest",
            "--max-messages", "3", "--timeout-ms", "20000");
        ok(consumed);
        List<String> expected = consumed.outLines();
        open(1, "records");
        awaitPage(() -> driver.findElements(By.id("records-form")).isEmpty() ? "no form" : null, PAGE, "the records form");
        WebElement form = driver.findElement(By.id("records-form"));
        form.findElement(By.name("topic")).sendKeys(TOPIC);
        new Select(form.findElement(By.name("mode"))).selectByValue("offset");
        form.findElement(By.name("offset")).sendKeys("0");
        WebElement limit = form.findElement(By.name("limit"));
        limit.clear();
        limit.sendKeys("3");
        form.findElement(By.id("records-submit")).click();
        awaitPage(() -> {
            List<String> values = rows("records").stream().map(r -> String.valueOf(r.get("c-value"))).toList();
            return values.equals(expected) ? null : "page " + values + ", CLI " + expected;
        }, PAGE, "the record browser to show partition 0's first records as the CLI reads them");
        screenshot("records");
        new Select(form.findElement(By.name("format"))).selectByValue("hex");
        form.findElement(By.id("records-submit")).click();
        String hex = HexFormat.of().formatHex(expected.get(0).getBytes(StandardCharsets.UTF_8));
        awaitPage(() -> {
            List<Map<String, Object>> rows = rows("records");
            return !rows.isEmpty() && hex.equals(rows.get(0).get("c-value")) ? null : "page " + rows;
        }, PAGE, "the record browser to show the value in hex");
    }

    @Test
    @Order(6)
    void theChartsDrawTheNodesThroughputAndLatency() throws IOException {
        needBrowser();
        open(1, "charts");
        awaitPage(() -> {
            Object canvases = ((JavascriptExecutor) driver).executeScript(
                "return document.querySelectorAll('#chart-throughput canvas, #chart-latency canvas').length");
            String rates = Chromium.text(driver, "rates");
            return ((Number) canvases).intValue() >= 2 && rates.contains("records/s in") ? null : canvases + " canvases, " + rates;
        }, PAGE, "uPlot to draw both charts");
        // four readings give three intervals: lines, not dots
        awaitPage(() -> {
            Object legends = ((JavascriptExecutor) driver).executeScript("return document.querySelectorAll('.u-legend').length");
            // read in the page in one step: the page redraws #rates on each refresh (a found element can go stale)
            String points = (String) ((JavascriptExecutor) driver).executeScript(
                "var r = document.getElementById('rates'); return r ? r.getAttribute('data-points') : null");
            return ((Number) legends).intValue() >= 2 && points != null && Integer.parseInt(points) >= 3 ? null
                : legends + " legends, " + points + " points";
        }, PAGE, "both charts with three intervals");
        screenshot("charts");
    }

    @Test
    @Order(7)
    void adminFormsAreRefusedWithoutTheCsrfTokenAndOnANodeWithAdminOff() throws IOException {
        needBrowser();
        open(1, "topics");
        awaitPage(() -> driver.findElements(By.id("create-topic-form")).isEmpty() ? "no create-topic form" : null, PAGE,
            "the create-topic form on node 1 (admin on)");
        WebElement form = driver.findElement(By.id("create-topic-form"));
        form.findElement(By.name("topic")).sendKeys("console-forged");
        ((JavascriptExecutor) driver).executeScript("document.querySelector('#create-topic-form input[name=csrf]').remove()");
        form.findElement(By.cssSelector("button[type=submit]")).click();
        awaitPage(() -> {
            String result = Chromium.text(driver, "create-topic-form-result");
            return result.contains("refused: 403 missing CSRF token") ? null : "result: " + result;
        }, PAGE, "the form without its token to be refused");
        screenshot("refused-without-csrf");
        assertThat(cli.run("topics", "list").out()).doesNotContain("console-forged");

        open(1, "overview");
        open(1, "topics");
        awaitPage(() -> driver.findElements(By.id("create-topic-form")).isEmpty() ? "no form" : null, PAGE, "the form again");
        WebElement again = driver.findElement(By.id("create-topic-form"));
        again.findElement(By.name("topic")).sendKeys("console-created");
        again.findElement(By.cssSelector("button[type=submit]")).click();
        awaitPage(() -> {
            String result = Chromium.text(driver, "create-topic-form-result");
            return result.startsWith("done: ") ? null : "result: " + result;
        }, PAGE, "the form with its token to create the topic");
        assertThat(cli.json("topics", "list").toString()).contains("\"console-created\"");

        open(3, "topics");
        awaitPage(() -> driver.findElements(By.id("admin-disabled")).isEmpty() ? "no read-only note" : null, PAGE,
            "node 3 (admin off) to show no admin form");
        assertThat(driver.findElements(By.id("create-topic-form"))).isEmpty();
        // a form posted anyway, as another page could, is refused
        Object status = ((JavascriptExecutor) driver).executeAsyncScript("const done = arguments[arguments.length - 1];"
            + "fetch('/ui/api/admin/create-topic', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'},"
            + " body: 'topic=console-forged&partitions=1'}).then(r => r.json().then(b => done(r.status + ' ' + b.error)));");
        assertThat(String.valueOf(status)).isEqualTo("403 admin actions are disabled on this node (console.admin.enabled=false)");
        screenshot("read-only");
        assertThat(cli.run("topics", "list").out()).doesNotContain("console-forged");
    }

    @Test
    @Order(8)
    void topShowsTheBrokersPartitionsAndGroupLagTheCliShows() {
        Cli.Result frame = cli.run("top", "--once");
        ok(frame);
        assertThat(frame.out()).contains("BROKERS", "BUSIEST PARTITIONS", "UNDER-REPLICATED PARTITIONS", "GROUP LAG");
        JsonNode group = cli.json("groups", "describe", "--group", GROUP);
        long lag = 0;
        for (JsonNode o : group.get("offsets")) {
            lag += o.get("lag").isNull() ? 0 : o.get("lag").asLong();
        }
        long expectedLag = lag;
        assertThat(frame.out().lines()).anyMatch(l -> l.matches(GROUP + "\\s+Empty\\s+\\d+\\s+0\\s+" + expectedLag + "\\s+.*"));
        assertThat(frame.out()).startsWith("raftline top - cluster " + cluster.clusterId() + ", controller ");
        JsonNode top = cli.json("top", "--once");
        assertThat(top.get("clusterId").asText()).isEqualTo(cluster.clusterId());
        JsonNode brokers = cli.json("brokers", "list");
        assertThat(top.get("brokers").size()).isEqualTo(brokers.get("brokers").size());
        for (int i = 0; i < brokers.get("brokers").size(); i++) {
            assertThat(top.get("brokers").get(i).get("state").asText()).isEqualTo(brokers.get("brokers").get(i).get("state").asText());
        }
        assertThat(top.get("underReplicated").size()).isZero();
        JsonNode topGroup = null;
        for (JsonNode g : top.get("groups")) {
            if (g.get("group").asText().equals(GROUP)) {
                topGroup = g;
            }
        }
        assertThat(topGroup).isNotNull();
        assertThat(topGroup.get("lag").asLong()).isEqualTo(expectedLag);
        Cli.Result three = cli.run("top", "--iterations", "2", "--interval-ms", "500");
        ok(three);
        assertThat(three.out()).contains("records/s over the last");
    }

    /** docs/console.md shows only commands that work: each line of its `raftline top` block runs and exits 0. */
    @Test
    @Order(8)
    void theDocsTopCommandsRun() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "console.md"), StandardCharsets.UTF_8);
        String block = doc.substring(doc.indexOf("## `raftline top`"));
        block = block.substring(block.indexOf("```\n") + 4);
        block = block.substring(0, block.indexOf("```"));
        List<String> commands = block.lines().filter(l -> !l.isBlank()).toList();
        assertThat(commands).isNotEmpty().allMatch(l -> l.startsWith("raftline top"));
        for (String line : commands) {
            ok(cli.run(line.substring("raftline ".length()).split(" ")));
        }
    }

    @Test
    @Order(9)
    void aKilledBrokerTurnsThePartitionsUnderReplicatedInThePageAndInTop() throws IOException {
        needBrowser();
        open(1, "topic/" + TOPIC);
        awaitPage(() -> rows("partitions").size() == 3 ? null : "rows: " + rows("partitions"), PAGE, "the partitions");
        long killedAt = System.nanoTime();
        cluster.node(3).kill();
        awaitPage(() -> {
            List<Map<String, Object>> rows = rows("partitions");
            return rows.size() == 3 && rows.stream().allMatch(r -> String.valueOf(r.get("cls")).contains("under-replicated")
                && "under-replicated".equals(r.get("c-health")) && !String.valueOf(r.get("c-isr")).contains("3"))
                ? null : "rows: " + rows;
        }, Duration.ofSeconds(30), "every partition to turn under-replicated in the page after broker 3 was killed");
        long seconds = Duration.ofNanos(System.nanoTime() - killedAt).toSeconds();
        System.out.println("ConsoleIT: the page showed the partitions under-replicated " + seconds + " s after the kill");
        screenshot("under-replicated");
        Map<String, Map<String, String>> described = describeRows();
        assertThat(described.values()).allMatch(r -> !r.get("c-isr").contains("3"));
        awaitPage(() -> partitionsDiffer("partitions", describeRows()), PAGE, "the page to match topics describe after the kill");
        JsonNode top = cli.json("top", "--once");
        List<String> under = new ArrayList<>();
        top.get("underReplicated").forEach(p -> under.add(p.get("topic").asText() + "-" + p.get("partition").asInt()));
        assertThat(under).contains(TOPIC + "-0", TOPIC + "-1", TOPIC + "-2");
    }
}
