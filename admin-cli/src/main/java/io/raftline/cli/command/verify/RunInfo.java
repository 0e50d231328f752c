package io.raftline.cli.command.verify;

import java.nio.file.Path;
import java.util.List;

/**
 * What the report says about a run besides the verdict: its setup and how it went.
 *
 * @param run              the run id
 * @param startWallMs      when the history started (epoch ms)
 * @param durationMs       how long the workload ran
 * @param topics           the topics it wrote
 * @param partitions       partitions per topic
 * @param replicationFactor their replication factor
 * @param minInsyncReplicas their min.insync.replicas, or -1 for the broker default
 * @param brokers          brokers in the cluster at the start
 * @param healed           whether every partition had a leader and a full ISR after the workload
 * @param healMs           how long that took (or how long it was waited for)
 * @param problem          why the run could not complete (the final reads stopped short, nothing was acknowledged), or null
 * @param notes            warnings: client errors seen, ignored fault-log lines, cleanup failures
 * @param reportDir        where report.md (and history.jsonl) went
 */
record RunInfo(String run, long startWallMs, long durationMs, List<String> topics, int partitions, int replicationFactor,
               int minInsyncReplicas, int brokers, boolean healed, long healMs, String problem, List<String> notes,
               Path reportDir) {

    /** Whether the run went to the end: records were acknowledged and the final reads reached every end offset. */
    boolean complete() {
        return problem == null;
    }

    Path reportFile() {
        return reportDir.resolve("report.md");
    }
}
