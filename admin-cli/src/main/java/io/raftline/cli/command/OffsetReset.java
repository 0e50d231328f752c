package io.raftline.cli.command;

import java.time.Duration;

/**
 * Where {@code groups reset-offsets} moves one partition's committed offset, as kafka-consumer-groups decides it. A
 * pure function of the partition's offsets, so the rules are table-tested:
 *
 * <ul>
 *   <li>{@code --to-earliest}: the log start offset; {@code --to-latest}: the log end offset (high watermark).</li>
 *   <li>{@code --to-current}: the committed offset, or the log end offset when there is none.</li>
 *   <li>{@code --to-offset N}, {@code --shift-by N} (from the committed offset, which must exist) and
 *       {@code --from-file}: the offset asked for, clamped into [log start, log end].</li>
 *   <li>{@code --to-datetime} and {@code --by-duration}: the first offset whose timestamp is at or after the time
 *       (found by the broker), or the log end offset when no record is that late.</li>
 * </ul>
 */
public final class OffsetReset {

    /** Which rule. */
    public enum Kind { EARLIEST, LATEST, CURRENT, OFFSET, SHIFT_BY, TIMESTAMP, FILE }

    /**
     * The rule and its number: the offset for OFFSET, the shift for SHIFT_BY, the epoch-ms time for TIMESTAMP
     * (unused by the others).
     */
    public record Spec(Kind kind, long value) {
        public static Spec of(Kind kind) {
            return new Spec(kind, 0);
        }
    }

    /**
     * One partition as the brokers and the group know it.
     *
     * @param logStart    the first offset in the log
     * @param logEnd      the high watermark
     * @param committed   the group's committed offset, null when it has none
     * @param atTimestamp the broker's answer for the TIMESTAMP time, null when no record is that late
     * @param fromFile    the offset a FILE plan asks for, null when the plan does not list the partition
     */
    public record Partition(long logStart, long logEnd, Long committed, Long atTimestamp, Long fromFile) {
    }

    private OffsetReset() {
    }

    /** The new offset; IllegalArgumentException (what is missing) when the rule cannot apply to this partition. */
    public static long newOffset(Spec spec, Partition p) {
        return switch (spec.kind()) {
            case EARLIEST -> p.logStart();
            case LATEST -> p.logEnd();
            case CURRENT -> p.committed() != null ? p.committed() : p.logEnd();
            case OFFSET -> clamp(spec.value(), p);
            case SHIFT_BY -> {
                if (p.committed() == null) {
                    throw new IllegalArgumentException("there is no committed offset to shift");
                }
                yield clamp(saturatedAdd(p.committed(), spec.value()), p);
            }
            case TIMESTAMP -> p.atTimestamp() != null ? p.atTimestamp() : p.logEnd();
            case FILE -> {
                if (p.fromFile() == null) {
                    throw new IllegalArgumentException("the file has no offset for it");
                }
                yield clamp(p.fromFile(), p);
            }
        };
    }

    /** The time {@code --by-duration} means: that long before now (a negative duration is refused). */
    public static long timestampBefore(long nowMs, Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("--by-duration must not be negative, got " + duration);
        }
        return nowMs - duration.toMillis();
    }

    private static long clamp(long offset, Partition p) {
        return Math.max(p.logStart(), Math.min(p.logEnd(), offset));
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        // overflow only when both have the same sign and the sum's sign differs
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }
}
