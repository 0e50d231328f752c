package io.raftline.cli.command.verify;

import io.raftline.cli.CliException;
import io.raftline.cli.ClientOptions;
import io.raftline.cli.Errors;
import io.raftline.cli.command.Futures;
import io.raftline.cli.output.Json;
import io.raftline.cli.verify.Checker;
import io.raftline.cli.verify.Event;
import io.raftline.cli.verify.FaultLog;
import io.raftline.cli.verify.History;
import io.raftline.cli.verify.Verdict;
import io.raftline.client.admin.Admin;
import io.raftline.client.admin.NewTopic;
import io.raftline.client.admin.TopicDescription;
import io.raftline.client.admin.TopicPartitionInfo;
import io.raftline.client.common.TopicPartition;
import io.raftline.client.consumer.OffsetAndMetadata;
import io.raftline.common.SystemTime;
import io.raftline.common.Time;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code raftline verify}: runs a checked workload against a cluster and says whether it kept its promises (contract:
 * the CLI contract, "Checking a cluster"). Creates its topics, runs idempotent acks=all producers and a consumer group
 * for {@code --duration}, waits for the cluster to heal, reads every partition from the start, checks the recorded
 * history ({@link Checker}) and writes {@code report.md} with its plot ({@link AckPlot}). Exit 0 when no safety anomaly
 * was found, 1 when one was or the run could not complete.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = "Runs a checked workload: nothing acknowledged lost, moved or duplicated; offsets consistent; commits monotonic.",
    footer = {"", "Examples:", "  raftline verify --duration 60s",
        "  raftline verify --duration 5m --acks1-producer --fault-log faults.log --output json"})
public final class VerifyCommand implements Callable<Integer> {

    static final long PROGRESS_INTERVAL_MS = 5000;
    static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    static final Duration HEAL_TIMEOUT = Duration.ofSeconds(120);
    static final Duration FINAL_READ_IDLE_TIMEOUT = Duration.ofSeconds(30);
    static final Duration THREAD_STOP_TIMEOUT = Duration.ofSeconds(180);

    @Mixin
    ClientOptions options;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Option(names = "--topics", paramLabel = "N", defaultValue = "2", description = "Topics to write (default: ${DEFAULT-VALUE}).")
    int topicCount;
    @Option(names = "--partitions", paramLabel = "P", defaultValue = "3", description = "Partitions per topic (default: ${DEFAULT-VALUE}).")
    int partitions;
    @Option(names = "--replication-factor", paramLabel = "R", description = "Default: min(3, brokers).")
    Short replicationFactor;
    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "60s", converter = DurationConverter.class,
        description = "How long the workload runs: 500ms, 60s, 5m (default: ${DEFAULT-VALUE}).")
    Duration duration;
    @Option(names = "--producers", paramLabel = "N", defaultValue = "2", description = "acks=all producers (default: ${DEFAULT-VALUE}).")
    int producers;
    @Option(names = "--consumers", paramLabel = "N", defaultValue = "2",
        description = "Consumers in the group (default: ${DEFAULT-VALUE}).")
    int consumers;
    @Option(names = "--rate", paramLabel = "R", defaultValue = "2000",
        description = "Records per second over all acks=all producers (default: ${DEFAULT-VALUE}).")
    int rate;
    @Option(names = "--acks1-producer",
        description = "Also run an acks=1 producer (at one acks=all producer's share of the rate); its losses are reported, never failing.")
    boolean acks1Producer;
    @Option(names = "--report-dir", paramLabel = "DIR",
        description = "Where report.md and its plot acks.png go (default: target/verify/<run id>).")
    Path reportDir;
    @Option(names = "--fault-log", paramLabel = "FILE",
        description = "A file a fault injector appends to: '<epoch ms> start|end <fault name> [target]' per line.")
    Path faultLog;
    @Option(names = "--keep-topics", description = "Leave the topics (and the consumer group) in place afterwards.")
    boolean keepTopics;
    @Option(names = "--write-history", description = "Also write every recorded operation to history.jsonl in the report dir.")
    boolean writeHistory;

    /** The clock of the history, the pacing and the deadlines; tests may set their own. */
    Time time = SystemTime.INSTANCE;

    @Override
    public Integer call() throws InterruptedException {
        validate();
        String run = UUID.randomUUID().toString().substring(0, 8);
        Path dir = reportDir != null ? reportDir : Path.of("target", "verify", run);
        createDirectories(dir);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String group = "verify-" + run;
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < topicCount; i++) {
            topics.add("verify-" + run + "-" + i);
        }
        List<String> notes = new ArrayList<>();
        try (Admin admin = options.admin()) {
            int brokers = Futures.get(admin.describeCluster().nodes()).size();
            short rf = replicationFactor != null ? replicationFactor : (short) Math.max(1, Math.min(3, brokers));
            if (rf > brokers) {
                throw new CliException("--replication-factor " + rf + " is more than the " + brokers + " live broker(s)");
            }
            int minIsr = rf >= 3 ? 2 : -1;
            boolean created = false;
            try {
                createTopics(admin, topics, rf, minIsr);
                created = true;
                if (awaitHealthy(admin, topics, START_TIMEOUT) < 0) {
                    throw new CliException("the topics " + topics + " have no leader or no full ISR after " + START_TIMEOUT.toSeconds()
                        + " s");
                }
                History history = new History(run, time);
                err.println("verify " + run + ": " + topicCount + " topic(s) x " + partitions + " partition(s), RF " + rf + ", "
                    + producers + " producer(s) at " + rate + " records/s, " + consumers + " consumer(s), for " + duration.toMillis()
                    + " ms; report in " + dir);
                err.flush();
                long workloadMs = runWorkload(history, topics, group, err, notes);
                err.println("workload done after " + workloadMs + " ms; waiting for every partition to have a leader and a full ISR "
                    + "(up to " + HEAL_TIMEOUT.toSeconds() + " s)");
                err.flush();
                long healStartNs = time.nanoseconds();
                long healMs = awaitHealthy(admin, topics, HEAL_TIMEOUT);
                boolean healed = healMs >= 0;
                if (healed) {
                    history.phase(Event.Phase.HEALED);
                } else {
                    healMs = (time.nanoseconds() - healStartNs) / 1_000_000L;
                    notes.add("the cluster did not heal (a leader and a full ISR for every partition) within " + HEAL_TIMEOUT.toSeconds()
                        + " s; the final reads went ahead");
                }
                err.println((healed ? "healed in " : "not healed after ") + healMs + " ms; reading every partition from the start");
                err.flush();
                FinalReads.Result reads = FinalReads.read(readerProps(run), partitionsOf(topics), history, FINAL_READ_IDLE_TIMEOUT);
                history.phase(Event.Phase.FINAL_READS_END);
                err.println("read " + reads.records() + " records; checking " + history.size() + " operations");
                err.flush();
                readCommitted(admin, group, history, notes);
                ReplicaComparison.record(admin, partitionsOf(topics), history, notes);
                FaultLog faults = faultLog == null ? FaultLog.EMPTY : FaultLog.read(faultLog);
                notes.addAll(faults.warnings());
                Verdict verdict = Checker.check(history, faults);
                if (!keepTopics) {
                    created = false;
                    cleanUp(admin, topics, group, notes);
                }
                String problem = !reads.complete() ? reads.problem()
                    : verdict.acked() == 0 ? "no record was acknowledged, so nothing was checked" : null;
                RunInfo info = new RunInfo(run, history.startWallMs(), workloadMs, topics, partitions, rf, minIsr, brokers, healed,
                    healMs, problem, notes, dir);
                AckPlot.Result plot = AckPlot.write(dir, history.events(), verdict.availability().windows());
                write(dir.resolve("report.md"), VerifyReport.markdown(verdict, info, faults, plot));
                if (writeHistory) {
                    history.write(dir.resolve("history.jsonl"));
                }
                if (options.json()) {
                    Json.print(out, VerifyReport.json(verdict, info));
                } else {
                    VerifyReport.table(verdict, info, out);
                }
                if (!info.complete()) {
                    throw new CliException("the run could not complete: " + problem + " (see " + info.reportFile() + ")");
                }
                if (!verdict.safe()) {
                    throw new CliException("safety anomalies found: " + VerifyReport.summary(verdict) + " (see " + info.reportFile() + ")");
                }
                return 0;
            } finally {
                if (created && !keepTopics) {
                    cleanUp(admin, topics, group, new ArrayList<>());
                }
            }
        }
    }

    private void validate() {
        CommandLine cmd = spec.commandLine();
        if (topicCount < 1 || partitions < 1 || producers < 1 || consumers < 1 || rate < 1) {
            throw new CommandLine.ParameterException(cmd, "--topics, --partitions, --producers, --consumers and --rate must be at least 1");
        }
        if (replicationFactor != null && replicationFactor < 1) {
            throw new CommandLine.ParameterException(cmd, "--replication-factor must be at least 1");
        }
        if (duration.isZero() || duration.isNegative()) {
            throw new CommandLine.ParameterException(cmd, "--duration must be positive");
        }
        if (faultLog != null && Files.isDirectory(faultLog)) {
            throw new CommandLine.ParameterException(cmd, "--fault-log " + faultLog
                + " is a directory; it names the file a fault injector appends to");
        }
    }

    /** Runs producers and consumers for --duration, printing progress; returns how long the workload ran. */
    private long runWorkload(History history, List<String> topics, String group, PrintWriter err, List<String> notes)
        throws InterruptedException {
        List<TopicPartition> targets = partitionsOf(topics);
        List<VerifyConsumer> group0 = new ArrayList<>();
        List<VerifyProducer> senders = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < consumers; i++) {
            VerifyConsumer c = new VerifyConsumer("consumer-" + i, group, consumerProps(history.run(), group, i), topics, history, time);
            group0.add(c);
            threads.add(start(c, "verify-consumer-" + i));
        }
        history.phase(Event.Phase.WORKLOAD_START);
        long startNs = time.nanoseconds();
        for (int i = 0; i < producers; i++) {
            VerifyProducer p = new VerifyProducer("p" + i, Event.Acks.ALL, producerProps(history.run(), "producer-" + i, "all"), targets,
                (double) rate / producers, history, time);
            senders.add(p);
            threads.add(start(p, "verify-producer-" + i));
        }
        if (acks1Producer) {
            VerifyProducer p = new VerifyProducer("acks1", Event.Acks.ONE, producerProps(history.run(), "producer-acks1", "1"), targets,
                (double) rate / producers, history, time);
            senders.add(p);
            threads.add(start(p, "verify-producer-acks1"));
        }
        long durationNs = duration.toNanos();
        long nextReportNs = startNs + PROGRESS_INTERVAL_MS * 1_000_000L;
        long lastAcked = 0;
        long lastReportNs = startNs;
        while (true) {
            long now = time.nanoseconds();
            long endNs = startNs + durationNs;
            if (now >= endNs) {
                break;
            }
            if (now >= nextReportNs) {
                long acked = senders.stream().mapToLong(p -> p.acked.get()).sum();
                progress(err, now - startNs, durationNs, senders, group0, (acked - lastAcked) * 1e9 / Math.max(1, now - lastReportNs));
                lastAcked = acked;
                lastReportNs = now;
                nextReportNs += PROGRESS_INTERVAL_MS * 1_000_000L;
            }
            time.sleep(Math.max(1, Math.min(endNs, nextReportNs) - now) / 1_000_000L + 1);
        }
        history.phase(Event.Phase.WORKLOAD_END);
        long workloadNs = time.nanoseconds() - startNs;
        senders.forEach(VerifyProducer::stop);
        for (int i = consumers; i < threads.size(); i++) {
            join(threads.get(i), notes);
        }
        group0.forEach(VerifyConsumer::stop);
        for (int i = 0; i < consumers; i++) {
            join(threads.get(i), notes);
        }
        senders.stream().map(VerifyProducer::firstError).filter(e -> e != null).forEach(e -> notes.add("first send error: " + e));
        group0.stream().map(VerifyConsumer::firstError).filter(e -> e != null).forEach(e -> notes.add("first consumer error: " + e));
        return workloadNs / 1_000_000L;
    }

    private void progress(PrintWriter err, long elapsedNs, long durationNs, List<VerifyProducer> senders, List<VerifyConsumer> readers,
                          double ackedPerSec) {
        long sent = senders.stream().mapToLong(p -> p.sent.get()).sum();
        long acked = senders.stream().mapToLong(p -> p.acked.get()).sum();
        long failed = senders.stream().mapToLong(p -> p.failed.get()).sum();
        long polled = readers.stream().mapToLong(c -> c.polled.get()).sum();
        String fault = "none";
        if (faultLog != null) {
            try {
                fault = faultsNow(FaultLog.read(faultLog), time.milliseconds());
            } catch (UncheckedIOException e) {
                fault = "unknown (" + e.getMessage() + ")";
            }
        }
        err.println(progressLine(elapsedNs, durationNs, sent, acked, ackedPerSec, failed, polled, fault));
        err.flush();
    }

    /**
     * One progress line, e.g. {@code [5/10 s] sent 10000, acknowledged 9990 (1998/s), failed 0, consumed 9000; fault:
     * kill-leader 2; 5 s remaining}: whole seconds elapsed (rounded down) and remaining (rounded up), so that the two
     * add up to the duration.
     */
    static String progressLine(long elapsedNs, long durationNs, long sent, long acked, double ackedPerSec, long failed, long consumed,
                               String fault) {
        long remainingNs = Math.max(0, durationNs - elapsedNs);
        return String.format("[%d/%d s] sent %d, acknowledged %d (%.0f/s), failed %d, consumed %d; fault: %s; %d s remaining",
            elapsedNs / 1_000_000_000L, durationNs / 1_000_000_000L, sent, acked, ackedPerSec, failed, consumed, fault,
            (remainingNs + 999_999_999L) / 1_000_000_000L);
    }

    /** The faults of {@code log} open at epoch ms {@code nowMs}, e.g. {@code kill-leader 2, pause 3}, or {@code none}. */
    static String faultsNow(FaultLog log, long nowMs) {
        List<FaultLog.Window> active = log.activeAt(nowMs);
        return active.isEmpty() ? "none" : String.join(", ", active.stream().map(FaultLog.Window::label).toList());
    }

    private static Thread start(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void join(Thread t, List<String> notes) throws InterruptedException {
        t.join(THREAD_STOP_TIMEOUT.toMillis());
        if (t.isAlive()) {
            notes.add(t.getName() + " did not stop within " + THREAD_STOP_TIMEOUT.toSeconds() + " s");
        }
    }

    private void createTopics(Admin admin, List<String> topics, short rf, int minIsr) {
        List<NewTopic> news = new ArrayList<>();
        for (String t : topics) {
            NewTopic n = new NewTopic(t, partitions, rf);
            if (minIsr > 0) {
                n.configs(Map.of("min.insync.replicas", Integer.toString(minIsr)));
            }
            news.add(n);
        }
        Futures.get(admin.createTopics(news).all());
    }

    /**
     * Waits until every partition of the topics has a leader and a full ISR; returns how long that took in ms, or -1
     * when it did not happen within {@code timeout}.
     */
    private long awaitHealthy(Admin admin, List<String> topics, Duration timeout) throws InterruptedException {
        long startNs = time.nanoseconds();
        while (true) {
            try {
                Map<String, TopicDescription> d = admin.describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS);
                if (healthy(d, topics)) {
                    return (time.nanoseconds() - startNs) / 1_000_000L;
                }
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // not answering yet: the cluster is still recovering
            }
            if (time.nanoseconds() - startNs > timeout.toNanos()) {
                return -1;
            }
            time.sleep(250);
        }
    }

    private boolean healthy(Map<String, TopicDescription> descriptions, List<String> topics) {
        for (String t : topics) {
            TopicDescription d = descriptions.get(t);
            if (d == null || d.partitions().size() < partitions) {
                return false;
            }
            for (TopicPartitionInfo p : d.partitions()) {
                if (p.leader() == null || p.isr().size() < p.replicas().size()) {
                    return false;
                }
            }
        }
        return true;
    }

    private void readCommitted(Admin admin, String group, History history, List<String> notes) {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).get(30, TimeUnit.SECONDS);
            long at = history.nowNs();
            committed.forEach((tp, o) -> history.add(new Event.CommittedRead(group, tp.topic(), tp.partition(), o.offset(), at)));
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            notes.add("could not read the committed offsets of group " + group + ": " + Errors.describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted");
        }
    }

    private static void cleanUp(Admin admin, List<String> topics, String group, List<String> notes) {
        try {
            admin.deleteConsumerGroups(List.of(group)).get(group).get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // a group that never formed (no consumer joined) is not an error worth a note
            if (!(Errors.unwrap(e) instanceof io.raftline.client.errors.GroupIdNotFoundException)) {
                notes.add("could not delete the consumer group " + group + ": " + Errors.describe(e));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            admin.deleteTopics(topics).all().get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            notes.add("could not delete the topics " + topics + ": " + Errors.describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private List<TopicPartition> partitionsOf(List<String> topics) {
        List<TopicPartition> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            for (String t : topics) {
                out.add(new TopicPartition(t, p));
            }
        }
        return out;
    }

    private Properties producerProps(String run, String name, String acks) {
        Properties props = options.producerProperties("verify-" + run + "-" + name);
        props.setProperty("acks", acks);
        props.setProperty("enable.idempotence", Boolean.toString(acks.equals("all")));
        return props;
    }

    private Properties consumerProps(String run, String group, int i) {
        Properties props = options.consumerProperties("verify-" + run + "-consumer-" + i);
        props.setProperty("group.id", group);
        props.setProperty("enable.auto.commit", "false");
        props.setProperty("auto.offset.reset", "earliest");
        return props;
    }

    private Properties readerProps(String run) {
        Properties props = options.consumerProperties("verify-" + run + "-final-reader");
        props.setProperty("enable.auto.commit", "false");
        props.setProperty("auto.offset.reset", "earliest");
        return props;
    }

    private static void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new CliException("cannot create the report dir " + dir + ": " + e.getMessage());
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
