package io.raftline.cli.verify;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The fault log that a fault injector appends to while {@code raftline verify} runs: one line per fault edge,
 * {@code <epoch ms> start|end <fault name> [target]}. Blank lines and lines starting with {@code #} are ignored. An
 * {@code end} closes the earliest open {@code start} of the same name and target; a start never ended stays open
 * (its window lasts to the end of the run). Lines that do not parse, and ends without a start, are kept as
 * {@link #warnings()} rather than failing a run that has already happened.
 *
 * @param windows  the fault windows, by start time
 * @param warnings one line per ignored line
 */
public record FaultLog(List<Window> windows, List<String> warnings) {

    /** No faults. */
    public static final FaultLog EMPTY = new FaultLog(List.of(), List.of());

    /** One fault's window; {@code endMs} is -1 while (or if) it was never ended. */
    public record Window(String fault, String target, long startMs, long endMs) {
        public boolean open() {
            return endMs < 0;
        }

        /** Whether the fault was active at epoch ms {@code nowMs}. */
        public boolean activeAt(long nowMs) {
            return startMs <= nowMs && (open() || nowMs < endMs);
        }

        /** The fault and its target, e.g. {@code kill-leader 2}. */
        public String label() {
            return target == null ? fault : fault + " " + target;
        }
    }

    public FaultLog {
        windows = List.copyOf(windows);
        warnings = List.copyOf(warnings);
    }

    /** Reads and parses {@code file}; a file that does not exist (yet) is an empty log. */
    public static FaultLog read(Path file) {
        try {
            return parse(Files.readAllLines(file, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return new FaultLog(List.of(), List.of("the fault log " + file + " does not exist"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the fault log " + file + ": " + e.getMessage(), e);
        }
    }

    /** Parses the lines of a fault log (the format in the class comment). */
    public static FaultLog parse(List<String> lines) {
        List<Window> windows = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\\s+");
            long ms;
            try {
                ms = Long.parseLong(parts[0]);
            } catch (NumberFormatException e) {
                ms = -1;
            }
            if (parts.length < 3 || parts.length > 4 || ms < 0 || !(parts[1].equals("start") || parts[1].equals("end"))) {
                warnings.add("fault log line " + (i + 1) + " ignored (not '<epoch ms> start|end <fault> [target]'): " + line);
                continue;
            }
            String fault = parts[2];
            String target = parts.length == 4 ? parts[3] : null;
            if (parts[1].equals("start")) {
                windows.add(new Window(fault, target, ms, -1));
                continue;
            }
            int open = -1;
            for (int w = 0; w < windows.size(); w++) {
                Window candidate = windows.get(w);
                if (candidate.open() && candidate.fault().equals(fault) && Objects.equals(candidate.target(), target)
                    && (open < 0 || candidate.startMs() < windows.get(open).startMs())) {
                    open = w;
                }
            }
            if (open < 0) {
                warnings.add("fault log line " + (i + 1) + " ignored (an end without a start): " + line);
                continue;
            }
            Window started = windows.get(open);
            if (ms < started.startMs()) {
                warnings.add("fault log line " + (i + 1) + " ignored (ends before its start): " + line);
                continue;
            }
            windows.set(open, new Window(fault, target, started.startMs(), ms));
        }
        windows.sort(Comparator.comparingLong(Window::startMs));
        return new FaultLog(windows, warnings);
    }

    /** The faults active at epoch ms {@code nowMs}. */
    public List<Window> activeAt(long nowMs) {
        return windows.stream().filter(w -> w.activeAt(nowMs)).toList();
    }
}
