package io.raftline.cli.verify;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.raftline.common.Time;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Every operation of a {@code raftline verify} run, in the order they completed, each stamped by one monotonic clock
 * (the injected {@link Time}) as nanoseconds since the history started. Any thread may append (producer callbacks,
 * consumer loops); {@link #events()} is a snapshot. As JSON lines ({@link #write}): a header line
 * {@code {"type":"history","run":…,"startWallMs":…}}, then one object per event with its {@code type}
 * ({@code send}, {@code poll}, {@code commit}, {@code committedRead}, {@code phase}, {@code replicaChecksum}) and the record's fields.
 */
public final class History {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Map<Class<? extends Event>, String> TYPES = Map.of(Event.Send.class, "send", Event.Poll.class, "poll",
        Event.Commit.class, "commit", Event.CommittedRead.class, "committedRead", Event.Phase.class, "phase",
        Event.ReplicaChecksum.class, "replicaChecksum");

    private final String run;
    private final Time time;
    private final long startNs;
    private final long startWallMs;
    private final List<Event> events = new ArrayList<>();

    /** A new, empty history of run {@code run}; its clock starts now. */
    public History(String run, Time time) {
        this.run = run;
        this.time = time;
        this.startNs = time.nanoseconds();
        this.startWallMs = time.milliseconds();
    }

    private History(String run, long startWallMs, List<Event> events) {
        this.run = run;
        this.time = null;
        this.startNs = 0;
        this.startWallMs = startWallMs;
        this.events.addAll(events);
    }

    /** A finished history (a replayed file, a test's hand-made one); it has no clock, so {@link #nowNs} fails. */
    public static History of(String run, long startWallMs, List<Event> events) {
        return new History(run, startWallMs, events);
    }

    public String run() {
        return run;
    }

    /** The wall clock (epoch ms) when the history's monotonic clock read 0. */
    public long startWallMs() {
        return startWallMs;
    }

    /** Nanoseconds since the history started, from its monotonic clock. */
    public long nowNs() {
        if (time == null) {
            throw new IllegalStateException("a finished history has no clock");
        }
        return time.nanoseconds() - startNs;
    }

    /** The monotonic time (ns since start) of a wall-clock instant, e.g. a fault log's epoch ms. */
    public long toHistoryNs(long epochMs) {
        return (epochMs - startWallMs) * 1_000_000L;
    }

    /** The wall-clock instant (epoch ms) of a monotonic time of this history. */
    public long toEpochMs(long historyNs) {
        return startWallMs + historyNs / 1_000_000L;
    }

    public synchronized void add(Event event) {
        events.add(event);
    }

    /** Records a phase boundary at the current time. */
    public void phase(String name) {
        add(new Event.Phase(name, nowNs()));
    }

    /** A snapshot of the events recorded so far, in the order they were added. */
    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    public synchronized int size() {
        return events.size();
    }

    /** Writes the history as JSON lines (the format in the class comment). */
    public void write(Path file) {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            ObjectNode header = MAPPER.createObjectNode().put("type", "history").put("run", run).put("startWallMs", startWallMs);
            w.write(MAPPER.writeValueAsString(header));
            w.newLine();
            for (Event e : events()) {
                ObjectNode line = MAPPER.createObjectNode().put("type", TYPES.get(e.getClass()));
                line.setAll((ObjectNode) MAPPER.valueToTree(e));
                w.write(MAPPER.writeValueAsString(line));
                w.newLine();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the history to " + file + ": " + e.getMessage(), e);
        }
    }

    /** Reads a history written by {@link #write}. */
    public static History read(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            if (lines.isEmpty()) {
                throw new IllegalArgumentException(file + " is empty");
            }
            JsonNode header = MAPPER.readTree(lines.get(0));
            if (!"history".equals(header.path("type").asText())) {
                throw new IllegalArgumentException(file + " does not start with a history header line");
            }
            List<Event> events = new ArrayList<>(lines.size());
            for (int i = 1; i < lines.size(); i++) {
                if (!lines.get(i).isBlank()) {
                    events.add(parse(lines.get(i), i + 1));
                }
            }
            return new History(header.path("run").asText(), header.path("startWallMs").asLong(), events);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the history " + file + ": " + e.getMessage(), e);
        }
    }

    private static Event parse(String line, int lineNumber) throws JsonProcessingException {
        ObjectNode node = (ObjectNode) MAPPER.readTree(line);
        String type = node.path("type").asText();
        node.remove("type");
        for (Map.Entry<Class<? extends Event>, String> t : TYPES.entrySet()) {
            if (t.getValue().equals(type)) {
                return MAPPER.treeToValue(node, t.getKey());
            }
        }
        throw new IllegalArgumentException("line " + lineNumber + ": unknown event type '" + type + "'");
    }
}
