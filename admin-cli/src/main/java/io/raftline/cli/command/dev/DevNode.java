package io.raftline.cli.command.dev;

import java.io.IOException;
import java.net.HttpURLConnection;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One node process of a dev cluster. */
final class DevNode {

    private final int id;
    private final Process process;
    private final Path config;
    private final Path logFile;
    private final int metricsPort;
    private final SSLContext tls;

    private DevNode(int id, Process process, Path config, Path logFile, int metricsPort, SSLContext tls) {
        this.tls = tls;
        this.id = id;
        this.process = process;
        this.config = config;
        this.logFile = logFile;
        this.metricsPort = metricsPort;
    }

    /** {@code tls}: how to reach the node's HTTPS metrics listener, or null for HTTP. */
    static DevNode start(Path home, DevLayout layout, int i, SSLContext tls) throws IOException {
        Path logs = layout.nodeDir(i).resolve("logs");
        Path console = logs.resolve("console.out");
        ProcessBuilder builder = new ProcessBuilder(List.of(home.resolve("bin/raftline").toString(), "server",
            "--config", layout.configFile(i).toString()))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile()))
            .redirectInput(ProcessBuilder.Redirect.PIPE);
        builder.environment().put("RAFTLINE_LOG_DIR", logs.toString());
        Process process = builder.start();
        process.getOutputStream().close();
        return new DevNode(i, process, layout.configFile(i), logs.resolve("server.log"), layout.metricsPort(i), tls);
    }

    int id() {
        return id;
    }

    long pid() {
        return process.pid();
    }

    Path config() {
        return config;
    }

    Path logFile() {
        return logFile;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    int exitCode() {
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** The node's /ready: caught up with the metadata and, as a broker, unfenced. */
    boolean isReady() {
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create((tls == null ? "http" : "https")
                + "://127.0.0.1:" + metricsPort + "/ready").toURL().openConnection();
            if (connection instanceof HttpsURLConnection https) {
                https.setSSLSocketFactory(tls.getSocketFactory());
            }
            connection.setConnectTimeout(500);
            connection.setReadTimeout(1000);
            try {
                return connection.getResponseCode() == 200;
            } finally {
                connection.disconnect();
            }
        } catch (IOException e) {
            return false;
        }
    }

    void terminate() {
        process.destroy();
    }

    void kill() {
        process.destroyForcibly();
    }

    boolean awaitExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
