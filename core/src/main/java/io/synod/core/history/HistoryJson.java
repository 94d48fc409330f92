package io.synod.core.history;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The JSON-lines history format of {@code docs/history-format.md}: one event per line, fields in the
 * order {@code process, type, f, key, value, time}, for example
 * <pre>{"process":3,"type":"invoke","f":"append","key":"k7","value":42,"time":123456}</pre>
 *
 * <p>The writer produces exactly that form. The reader is strict (any field order is accepted, but every
 * field must be present exactly once, with the right type, and nothing else), so a history that loads
 * is one the checker can trust; every error names the line and the problem. Hand-written because core
 * has no dependencies.
 */
public final class HistoryJson {
    /** Lines longer than this are rejected before they are buffered: a read of 10^6 values fits easily. */
    public static final int MAX_LINE_CHARS = 1 << 26;

    private HistoryJson() {
    }

    /** Writes every event of {@code history}, one line each, each ended by {@code '\n'}. */
    public static void write(History history, Appendable out) throws IOException {
        for (HistoryEvent event : history.events()) {
            writeEvent(event, out);
        }
    }

    /** Writes one event as one line ended by {@code '\n'}. */
    public static void writeEvent(HistoryEvent event, Appendable out) throws IOException {
        out.append(toJsonLine(event)).append('\n');
    }

    /** One event as its JSON line, without the line terminator. */
    public static String toJsonLine(HistoryEvent event) {
        StringBuilder line = new StringBuilder(96);
        line.append("{\"process\":").append(event.process());
        line.append(",\"type\":\"").append(event.type().jsonName());
        line.append("\",\"f\":\"").append(event.function().jsonName());
        line.append("\",\"key\":");
        appendJsonString(event.key(), line);
        line.append(",\"value\":");
        if (event.function() == OpFunction.APPEND) {
            line.append(event.appendValue());
        } else if (event.readValues() == null) {
            line.append("null");
        } else {
            line.append('[');
            List<Long> values = event.readValues();
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) {
                    line.append(',');
                }
                line.append(values.get(i).longValue());
            }
            line.append(']');
        }
        line.append(",\"time\":").append(event.timeNanos()).append('}');
        return line.toString();
    }

    /**
     * Reads a whole history: UTF-8 JSON lines.
     *
     * @throws HistoryFormatException if a line is not a well-formed event, or the events are not a
     *                                valid history (see {@link History#of}); the message names the line
     */
    public static History read(InputStream in) throws IOException {
        return read(new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    /**
     * Reads a whole history: one event per line ({@code \n}, {@code \r\n} or {@code \r} terminated; the
     * last terminator is optional). Empty lines are errors.
     *
     * @throws HistoryFormatException if a line is not a well-formed event, or the events are not a
     *                                valid history (see {@link History#of}); the message names the line
     */
    public static History read(Reader in) throws IOException {
        List<HistoryEvent> events = new ArrayList<>();
        HistoryValidator validator = new HistoryValidator();
        LineReader lines = new LineReader(in);
        String line;
        while ((line = lines.next()) != null) {
            long lineNumber = lines.lineNumber();
            HistoryEvent event = JsonEventParser.parse(line, lineNumber);
            try {
                validator.accept(event);
            } catch (InvalidHistoryException e) {
                throw new HistoryFormatException(lineNumber, e.problem());
            }
            events.add(event);
        }
        return History.of(events);
    }

    private static void appendJsonString(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** Splits a Reader into lines, refusing any line longer than {@link #MAX_LINE_CHARS} before buffering it. */
    private static final class LineReader {
        private final Reader in;
        private final char[] buffer = new char[8192];
        private int position;
        private int limit;
        private long lineNumber;
        private boolean pendingCarriageReturn;

        LineReader(Reader in) {
            this.in = in;
        }

        long lineNumber() {
            return lineNumber;
        }

        /** The next line without its terminator, or null at the end of input. */
        String next() throws IOException {
            StringBuilder line = null;
            while (true) {
                if (position == limit) {
                    limit = in.read(buffer, 0, buffer.length);
                    position = 0;
                    if (limit <= 0) {
                        limit = 0;
                        if (line == null) {
                            return null;
                        }
                        lineNumber++;
                        return line.toString();
                    }
                }
                char c = buffer[position++];
                if (pendingCarriageReturn) {
                    pendingCarriageReturn = false;
                    if (c == '\n') {
                        continue;
                    }
                }
                if (line == null) {
                    line = new StringBuilder();
                }
                if (c == '\n' || c == '\r') {
                    pendingCarriageReturn = c == '\r';
                    lineNumber++;
                    return line.toString();
                }
                if (line.length() == MAX_LINE_CHARS) {
                    throw new HistoryFormatException(lineNumber + 1, "line longer than " + MAX_LINE_CHARS + " characters");
                }
                line.append(c);
            }
        }
    }
}
