package io.raftline.cli.verify;

import java.util.ArrayList;
import java.util.List;

/**
 * Hand-made histories for the checker tests, written as the operations happened. Each call advances the clock by
 * 1 ms unless it says when ({@code at}); the default topic is {@code t} and the default partition 0.
 */
final class Histories {

    static final String T = "t";
    private final List<Event> events = new ArrayList<>();
    private long nowMs;

    static Histories history() {
        return new Histories();
    }

    private long tick() {
        return ++nowMs * 1_000_000L;
    }

    Histories at(long ms) {
        nowMs = ms;
        return this;
    }

    /** An acks=all record acknowledged at partition 0, this offset. */
    Histories acked(String value, long offset) {
        return acked(value, 0, offset);
    }

    Histories acked(String value, int partition, long offset) {
        long t = tick();
        events.add(new Event.Send("p0", Event.Acks.ALL, T, value, t, t, partition, offset, null));
        return this;
    }

    /** An acks=all send that failed. */
    Histories failed(String value) {
        return failed(value, "timed out");
    }

    /** An acks=all send that failed with this error. */
    Histories failed(String value, String error) {
        long t = tick();
        events.add(new Event.Send("p0", Event.Acks.ALL, T, value, t, t, -1, -1, error));
        return this;
    }

    /** An acks=1 record acknowledged at partition 0, this offset. */
    Histories acked1(String value, long offset) {
        long t = tick();
        events.add(new Event.Send("acks1", Event.Acks.ONE, T, value, t, t, 0, offset, null));
        return this;
    }

    /** A group consumer's read of partition 0 in its assignment number {@code assignment}. */
    Histories read(String consumer, long assignment, long offset, String value) {
        return read(consumer, assignment, 0, offset, value);
    }

    Histories read(String consumer, long assignment, int partition, long offset, String value) {
        events.add(new Event.Poll(consumer, false, assignment, T, partition, offset, value, tick()));
        return this;
    }

    /** Reads of consecutive offsets from {@code first}, the values {@code v<offset>}. */
    Histories reads(String consumer, long assignment, long first, long last) {
        for (long o = first; o <= last; o++) {
            read(consumer, assignment, o, "v" + o);
        }
        return this;
    }

    /** Broker {@code broker}'s checksum of partition 0 over [from, to). */
    Histories checksum(int broker, long from, long to, long crc32c) {
        events.add(new Event.ReplicaChecksum(T, 0, broker, from, to, crc32c, tick()));
        return this;
    }

    /** The final reads' record at partition 0, this offset. */
    Histories finalRead(long offset, String value) {
        return finalRead(0, offset, value);
    }

    Histories finalRead(int partition, long offset, String value) {
        events.add(new Event.Poll("final-reader", true, 0, T, partition, offset, value, tick()));
        return this;
    }

    /** Final reads of consecutive offsets from {@code first}, the values {@code v<offset>}. */
    Histories finalReads(long first, long last) {
        for (long o = first; o <= last; o++) {
            finalRead(o, "v" + o);
        }
        return this;
    }

    /** A successful commit of partition 0 by {@code consumer} in group g, invoked and answered at these ms. */
    Histories commit(String consumer, long offset, long invokeMs, long atMs) {
        return commit("g", consumer, 0, offset, invokeMs, atMs, null);
    }

    Histories commit(String group, String consumer, int partition, long offset, long invokeMs, long atMs, String error) {
        events.add(new Event.Commit(consumer, group, T, partition, offset, invokeMs * 1_000_000L, atMs * 1_000_000L, error));
        return this;
    }

    Histories committedRead(long offset, long atMs) {
        events.add(new Event.CommittedRead("g", T, 0, offset, atMs * 1_000_000L));
        return this;
    }

    /** An acks=all acknowledgement at exactly this ms (for unavailability). */
    Histories ackAt(long ms) {
        long t = ms * 1_000_000L;
        events.add(new Event.Send("p0", Event.Acks.ALL, T, "a" + ms, t, t, 0, events.size(), null));
        return this;
    }

    Histories phase(String name, long ms) {
        events.add(new Event.Phase(name, ms * 1_000_000L));
        return this;
    }

    List<Event> events() {
        return List.copyOf(events);
    }

    /** As a finished history whose clock started at epoch ms 1,000,000. */
    History build() {
        return History.of("test", 1_000_000L, events);
    }
}
