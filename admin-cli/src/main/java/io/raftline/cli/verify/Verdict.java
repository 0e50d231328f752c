package io.raftline.cli.verify;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checked outcome of a run: the safety anomalies (any one found fails the run), the {@code acks=1} losses (reported,
 * never failing), unavailability, and the counts the report shows.
 *
 * @param anomalies    the safety checks, in {@link Checker#SAFETY} order
 * @param acks1Acked   records acknowledged to the {@code acks=1} producer
 * @param acks1Lost    those the final reads did not return
 * @param acked        records acknowledged to the {@code acks=all} producers
 * @param failedSendErrors how many {@code acks=all} sends failed (their records may or may not be stored) with each
 *                     error, numbers in it written #, most frequent first
 * @param read         records returned by the final reads
 * @param availability the unavailability figures
 */
public record Verdict(List<Anomaly> anomalies, long acks1Acked, Anomaly acks1Lost, long acked,
                      Map<String, Long> failedSendErrors, long read, Unavailability.Report availability) {

    public Verdict {
        anomalies = List.copyOf(anomalies);
        failedSendErrors = Collections.unmodifiableMap(new LinkedHashMap<>(failedSendErrors));
    }

    /** {@code acks=all} sends that failed, whatever the error. */
    public long failedSends() {
        return failedSendErrors.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Whether no safety anomaly was found. */
    public boolean safe() {
        return anomalies.stream().noneMatch(Anomaly::found);
    }

    /** The anomaly of that name. */
    public Anomaly anomaly(String name) {
        return anomalies.stream().filter(a -> a.name().equals(name)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no check named " + name));
    }
}
