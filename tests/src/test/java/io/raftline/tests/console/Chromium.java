package io.raftline.tests.console;

import io.raftline.tests.cluster.DebianPackages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium and its chromedriver for the browser tests: installed with apt-get when missing (as the
 * deploy tests install their packages), and the one reason they cannot run when that is impossible here.
 */
final class Chromium {

    static final Path BROWSER = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    static final List<String> FLAGS = List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1400,1000");

    private Chromium() {
    }

    private static boolean present() {
        return Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER);
    }

    /** A headless Chromium driven through chromedriver, with its profile in {@code profile}; {@code extraFlags} added. */
    static WebDriver start(Path profile, String... extraFlags) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(BROWSER.toFile());
        options.addArguments(FLAGS);
        options.addArguments(extraFlags);
        options.addArguments("--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
            .usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    /**
     * The rendered text of the element with id {@code id}, or "" when the page has none, read in one script step: the
     * console re-renders its parts on each refresh, and an element found by one WebDriver call may be gone (stale) by
     * the next one that reads it.
     */
    static String text(WebDriver driver, String id) {
        Object t = ((JavascriptExecutor) driver).executeScript(
            "const e = document.getElementById(arguments[0]); return e ? e.innerText : '';", id);
        return t == null ? "" : t.toString();
    }

    /** Whether the element with id {@code id} is there and not disabled, read in one script step as {@link #text}. */
    static boolean enabled(WebDriver driver, String id) {
        return Boolean.TRUE.equals(((JavascriptExecutor) driver).executeScript(
            "const e = document.getElementById(arguments[0]); return e != null && !e.disabled;", id));
    }

    /** Empty when Chromium and chromedriver are there (installing them first if it can), else why not. */
    static Optional<String> missing() {
        return DebianPackages.ensure(List.of(BROWSER.toString(), DRIVER.toString()), "chromium", "chromium-driver");
    }
}
