package io.raftline.cli.output;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain aligned text table for people; scripts use --output json. */
public final class Table {

    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    public Table(String... headers) {
        this.headers = List.of(headers);
    }

    public Table row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException("expected " + headers.size() + " cells, got " + cells.length);
        }
        List<String> row = new ArrayList<>(cells.length);
        for (Object cell : cells) {
            row.add(cell == null ? "-" : String.valueOf(cell));
        }
        rows.add(row);
        return this;
    }

    public void print(PrintWriter out) {
        int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = headers.get(i).length();
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        printRow(out, headers, widths);
        for (List<String> row : rows) {
            printRow(out, row, widths);
        }
        out.flush();
    }

    private static void printRow(PrintWriter out, List<String> cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String cell = cells.get(i);
            line.append(cell);
            if (i < cells.size() - 1) {
                line.append(" ".repeat(widths[i] - cell.length() + 2));
            }
        }
        out.println(line.toString().stripTrailing());
    }
}
