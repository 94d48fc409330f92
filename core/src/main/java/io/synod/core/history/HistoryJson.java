package io.synod.core.history;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
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
        return read(new ByteLineSource(in));
    }

    /**
     * Reads a whole history: one event per line ({@code \n}, {@code \r\n} or {@code \r} terminated; the
     * last terminator is optional). Empty lines are errors.
     *
     * @throws HistoryFormatException if a line is not a well-formed event, or the events are not a
     *                                valid history (see {@link History#of}); the message names the line
     */
    public static History read(Reader in) throws IOException {
        return read(new CharLineSource(in));
    }

    private static History read(LineSource lines) throws IOException {
        List<HistoryEvent> events = new ArrayList<>();
        HistoryValidator validator = new HistoryValidator();
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

    /** Lines of input, each without its terminator ({@code \n}, {@code \r\n} or {@code \r}). */
    private abstract static class LineSource {
        private long lineNumber;
        private boolean afterCarriageReturn;

        /** The next character or byte, or -1 at the end of input. */
        abstract int read() throws IOException;

        abstract void append(int unit) throws IOException;

        abstract int length();

        /** The line gathered so far, which is then cleared. */
        abstract String take() throws IOException;

        long lineNumber() {
            return lineNumber;
        }

        /** The next line, or null at the end of input. */
        String next() throws IOException {
            boolean any = false;
            while (true) {
                int unit = read();
                if (unit < 0) {
                    if (!any) {
                        return null;
                    }
                    lineNumber++;
                    return take();
                }
                if (afterCarriageReturn) {
                    afterCarriageReturn = false;
                    if (unit == '\n') {
                        continue;
                    }
                }
                any = true;
                if (unit == '\n' || unit == '\r') {
                    afterCarriageReturn = unit == '\r';
                    lineNumber++;
                    return take();
                }
                if (length() == MAX_LINE_CHARS) {
                    throw new HistoryFormatException(lineNumber + 1, "line longer than " + MAX_LINE_CHARS + " characters");
                }
                append(unit);
            }
        }
    }

    private static final class CharLineSource extends LineSource {
        private final Reader in;
        private final char[] buffer = new char[8192];
        private int position;
        private int limit;
        private final StringBuilder line = new StringBuilder();

        CharLineSource(Reader in) {
            this.in = in;
        }

        @Override
        int read() throws IOException {
            if (position == limit) {
                limit = Math.max(0, in.read(buffer, 0, buffer.length));
                position = 0;
                if (limit == 0) {
                    return -1;
                }
            }
            return buffer[position++];
        }

        @Override
        void append(int unit) {
            line.append((char) unit);
        }

        @Override
        int length() {
            return line.length();
        }

        @Override
        String take() {
            String text = line.toString();
            line.setLength(0);
            return text;
        }
    }

    /**
     * Splits bytes into lines before decoding each strictly as UTF-8, so a malformed byte is reported on
     * its own line (a decoding Reader reads ahead and would blame an earlier one). Safe because the
     * bytes of {@code \n} and {@code \r} never occur inside a UTF-8 multi-byte sequence.
     */
    private static final class ByteLineSource extends LineSource {
        private final InputStream in;
        private final byte[] buffer = new byte[8192];
        private int position;
        private int limit;
        private byte[] line = new byte[256];
        private int length;
        private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);

        ByteLineSource(InputStream in) {
            this.in = in;
        }

        @Override
        int read() throws IOException {
            if (position == limit) {
                limit = Math.max(0, in.read(buffer, 0, buffer.length));
                position = 0;
                if (limit == 0) {
                    return -1;
                }
            }
            return buffer[position++] & 0xFF;
        }

        @Override
        void append(int unit) {
            if (length == line.length) {
                line = Arrays.copyOf(line, Math.min(MAX_LINE_CHARS, 2 * line.length));
            }
            line[length++] = (byte) unit;
        }

        @Override
        int length() {
            return length;
        }

        @Override
        String take() throws IOException {
            try {
                return utf8.reset().decode(ByteBuffer.wrap(line, 0, length)).toString();
            } catch (CharacterCodingException e) {
                throw new HistoryFormatException(lineNumber(), "not valid UTF-8 (" + e.getMessage() + ")");
            } finally {
                length = 0;
            }
        }
    }
}
