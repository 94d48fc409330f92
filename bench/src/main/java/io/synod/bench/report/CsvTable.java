package io.synod.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A CSV file built row by row (RFC 4180 quoting; numbers printed with '.' whatever the locale). */
public final class CsvTable {

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    public CsvTable(List<String> header) {
        this.header = List.copyOf(header);
    }

    public CsvTable(String... header) {
        this(List.of(header));
    }

    public CsvTable add(Object... cells) {
        if (cells.length != header.size()) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, header has " + header.size());
        }
        List<String> row = new ArrayList<>(cells.length);
        for (Object cell : cells) {
            row.add(format(cell));
        }
        rows.add(row);
        return this;
    }

    public int rowCount() {
        return rows.size();
    }

    public void write(Path file) throws IOException {
        StringBuilder text = new StringBuilder();
        appendLine(text, header);
        for (List<String> row : rows) {
            appendLine(text, row);
        }
        Files.writeString(file, text.toString(), StandardCharsets.UTF_8);
    }

    private static void appendLine(StringBuilder text, List<String> cells) {
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                text.append(',');
            }
            text.append(quote(cells.get(i)));
        }
        text.append('\n');
    }

    static String format(Object cell) {
        if (cell == null) {
            return "";
        }
        if (cell instanceof Double d) {
            return d.isNaN() ? "" : String.format(Locale.ROOT, "%.3f", d);
        }
        if (cell instanceof Float f) {
            return f.isNaN() ? "" : String.format(Locale.ROOT, "%.3f", f);
        }
        return cell.toString();
    }

    static String quote(String cell) {
        if (cell.indexOf(',') < 0 && cell.indexOf('"') < 0 && cell.indexOf('\n') < 0) {
            return cell;
        }
        return '"' + cell.replace("\"", "\"\"") + '"';
    }
}
