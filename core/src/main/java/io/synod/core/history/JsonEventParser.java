package io.synod.core.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses one line of the history format into an event: a small strict JSON parser (RFC 8259 values)
 * followed by a check of the fields against the format. Errors carry the line number.
 */
final class JsonEventParser {
    private static final List<String> FIELDS = List.of("process", "type", "f", "key", "value", "time");
    /** Nesting bound for values that are parsed only to be rejected, so a hostile line cannot overflow the stack. */
    private static final int MAX_DEPTH = 32;

    /** A JSON number, kept as text until its field decides what it must be. */
    private record JsonNumber(String text) {
    }

    /** JSON null, distinct from "field absent". */
    private enum JsonNull { NULL }

    private final String text;
    private final long lineNumber;
    private int position;

    private JsonEventParser(String text, long lineNumber) {
        this.text = text;
        this.lineNumber = lineNumber;
    }

    static HistoryEvent parse(String line, long lineNumber) throws HistoryFormatException {
        JsonEventParser parser = new JsonEventParser(line, lineNumber);
        parser.skipWhitespace();
        if (parser.position == line.length()) {
            throw parser.error("empty line; expected one JSON object per line");
        }
        if (line.charAt(parser.position) != '{') {
            throw parser.error("bad JSON: expected '{' at column " + (parser.position + 1));
        }
        Map<String, Object> fields = parser.parseObject(0, true);
        parser.skipWhitespace();
        if (parser.position != line.length()) {
            throw parser.error("bad JSON: unexpected text after the object at column " + (parser.position + 1));
        }
        return parser.toEvent(fields);
    }

    private HistoryEvent toEvent(Map<String, Object> fields) throws HistoryFormatException {
        for (String name : fields.keySet()) {
            if (!FIELDS.contains(name)) {
                throw error("unknown field \"" + name + "\" (expected exactly process, type, f, key, value, time)");
            }
        }
        for (String name : FIELDS) {
            if (!fields.containsKey(name)) {
                throw error("missing field \"" + name + "\"");
            }
        }
        long process = integerField(fields, "process", Integer.MAX_VALUE);
        EventType type;
        try {
            type = EventType.fromJsonName(stringField(fields, "type"));
        } catch (IllegalArgumentException e) {
            throw error("field \"type\": " + e.getMessage());
        }
        OpFunction function;
        try {
            function = OpFunction.fromJsonName(stringField(fields, "f"));
        } catch (IllegalArgumentException e) {
            throw error("field \"f\": " + e.getMessage());
        }
        String key = stringField(fields, "key");
        long timeNanos = integerField(fields, "time", Long.MAX_VALUE);
        Object value = fields.get("value");
        if (function == OpFunction.APPEND) {
            if (!(value instanceof JsonNumber)) {
                throw error("field \"value\": an append carries its value, an integer; got " + describe(value));
            }
            long appendValue = toLong((JsonNumber) value, "value", Long.MIN_VALUE, Long.MAX_VALUE);
            return HistoryEvent.append((int) process, type, key, appendValue, timeNanos);
        }
        if (type != EventType.OK) {
            if (value != JsonNull.NULL) {
                throw error("field \"value\": a read carries null on " + type.jsonName() + "; got " + describe(value));
            }
            return HistoryEvent.read((int) process, type, key, null, timeNanos);
        }
        if (!(value instanceof List)) {
            throw error("field \"value\": a read that completed ok carries the list it returned; got " + describe(value));
        }
        List<?> elements = (List<?>) value;
        List<Long> values = new ArrayList<>(elements.size());
        for (int i = 0; i < elements.size(); i++) {
            Object element = elements.get(i);
            if (!(element instanceof JsonNumber)) {
                throw error("field \"value\": element " + i + " of the read's list must be an integer; got " + describe(element));
            }
            values.add(toLong((JsonNumber) element, "value", Long.MIN_VALUE, Long.MAX_VALUE));
        }
        return HistoryEvent.read((int) process, type, key, values, timeNanos);
    }

    private String stringField(Map<String, Object> fields, String name) throws HistoryFormatException {
        Object value = fields.get(name);
        if (!(value instanceof String)) {
            throw error("field \"" + name + "\" must be a string; got " + describe(value));
        }
        return (String) value;
    }

    private long integerField(Map<String, Object> fields, String name, long max) throws HistoryFormatException {
        Object value = fields.get(name);
        if (!(value instanceof JsonNumber)) {
            throw error("field \"" + name + "\" must be a non-negative integer; got " + describe(value));
        }
        return toLong((JsonNumber) value, name, 0, max);
    }

    private long toLong(JsonNumber number, String name, long min, long max) throws HistoryFormatException {
        String digits = number.text();
        boolean integral = digits.indexOf('.') < 0 && digits.indexOf('e') < 0 && digits.indexOf('E') < 0;
        long parsed;
        try {
            parsed = integral ? Long.parseLong(digits) : Long.MIN_VALUE;
        } catch (NumberFormatException e) {
            throw error("field \"" + name + "\": " + digits + " does not fit in a 64-bit integer");
        }
        if (!integral) {
            throw error("field \"" + name + "\" must be an integer; got " + digits);
        }
        if (parsed < min || parsed > max) {
            throw error("field \"" + name + "\": " + digits + " is out of range [" + min + ", " + max + "]");
        }
        return parsed;
    }

    private static String describe(Object value) {
        if (value == JsonNull.NULL) {
            return "null";
        }
        if (value instanceof String) {
            return "a string";
        }
        if (value instanceof JsonNumber) {
            return "the number " + ((JsonNumber) value).text();
        }
        if (value instanceof Boolean) {
            return "a boolean";
        }
        if (value instanceof List) {
            return "an array";
        }
        return "an object";
    }

    private Object parseValue(int depth) throws HistoryFormatException {
        if (depth > MAX_DEPTH) {
            throw error("bad JSON: nested deeper than " + MAX_DEPTH + " levels");
        }
        skipWhitespace();
        if (position == text.length()) {
            throw error("bad JSON: line ends where a value was expected");
        }
        char c = text.charAt(position);
        switch (c) {
            case '{':
                return parseObject(depth, false);
            case '[':
                return parseArray(depth);
            case '"':
                return parseString();
            case 't':
                expectLiteral("true");
                return Boolean.TRUE;
            case 'f':
                expectLiteral("false");
                return Boolean.FALSE;
            case 'n':
                expectLiteral("null");
                return JsonNull.NULL;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return parseNumber();
                }
                throw error("bad JSON: unexpected character '" + c + "' at column " + (position + 1));
        }
    }

    private Map<String, Object> parseObject(int depth, boolean rejectDuplicates) throws HistoryFormatException {
        position++; // '{'
        Map<String, Object> members = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            position++;
            return members;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw error("bad JSON: expected a field name in double quotes at column " + (position + 1));
            }
            String name = parseString();
            skipWhitespace();
            expect(':');
            Object value = parseValue(depth + 1);
            if (members.put(name, value) != null && rejectDuplicates) {
                throw error("duplicate field \"" + name + "\"");
            }
            skipWhitespace();
            char c = peek();
            position++;
            if (c == '}') {
                return members;
            }
            if (c != ',') {
                throw error("bad JSON: expected ',' or '}' at column " + position);
            }
        }
    }

    private List<Object> parseArray(int depth) throws HistoryFormatException {
        position++; // '['
        List<Object> elements = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            position++;
            return elements;
        }
        while (true) {
            elements.add(parseValue(depth + 1));
            skipWhitespace();
            char c = peek();
            position++;
            if (c == ']') {
                return elements;
            }
            if (c != ',') {
                throw error("bad JSON: expected ',' or ']' at column " + position);
            }
        }
    }

    private String parseString() throws HistoryFormatException {
        position++; // opening quote
        StringBuilder value = new StringBuilder();
        while (true) {
            if (position >= text.length()) {
                throw error("bad JSON: unterminated string");
            }
            char c = text.charAt(position++);
            if (c == '"') {
                return value.toString();
            }
            if (c < 0x20) {
                throw error("bad JSON: unescaped control character in a string at column " + position);
            }
            if (c != '\\') {
                value.append(c);
                continue;
            }
            if (position >= text.length()) {
                throw error("bad JSON: unterminated string");
            }
            char escape = text.charAt(position++);
            switch (escape) {
                case '"' -> value.append('"');
                case '\\' -> value.append('\\');
                case '/' -> value.append('/');
                case 'b' -> value.append('\b');
                case 'f' -> value.append('\f');
                case 'n' -> value.append('\n');
                case 'r' -> value.append('\r');
                case 't' -> value.append('\t');
                case 'u' -> {
                    if (position + 4 > text.length()) {
                        throw error("bad JSON: truncated \\u escape");
                    }
                    int code = 0;
                    for (int i = 0; i < 4; i++) {
                        int digit = Character.digit(text.charAt(position++), 16);
                        if (digit < 0) {
                            throw error("bad JSON: bad hex digit in \\u escape at column " + position);
                        }
                        code = code * 16 + digit;
                    }
                    value.append((char) code);
                }
                default -> throw error("bad JSON: unknown escape \\" + escape + " at column " + position);
            }
        }
    }

    /** RFC 8259 number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
    private JsonNumber parseNumber() throws HistoryFormatException {
        int start = position;
        if (peek() == '-') {
            position++;
        }
        if (peek() == '0') {
            position++;
        } else if (!skipDigits()) {
            throw error("bad JSON: malformed number at column " + (start + 1));
        }
        if (peek() == '.') {
            position++;
            if (!skipDigits()) {
                throw error("bad JSON: malformed number at column " + (start + 1));
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            position++;
            if (peek() == '+' || peek() == '-') {
                position++;
            }
            if (!skipDigits()) {
                throw error("bad JSON: malformed number at column " + (start + 1));
            }
        }
        return new JsonNumber(text.substring(start, position));
    }

    private boolean skipDigits() {
        int start = position;
        while (position < text.length() && text.charAt(position) >= '0' && text.charAt(position) <= '9') {
            position++;
        }
        return position > start;
    }

    private void expectLiteral(String literal) throws HistoryFormatException {
        if (!text.startsWith(literal, position)) {
            throw error("bad JSON: unexpected text at column " + (position + 1));
        }
        position += literal.length();
    }

    private void expect(char c) throws HistoryFormatException {
        if (peek() != c) {
            throw error("bad JSON: expected '" + c + "' at column " + (position + 1));
        }
        position++;
    }

    /** The character at the current position, or 0 at the end of the line (0 is never valid JSON outside strings). */
    private char peek() {
        return position < text.length() ? text.charAt(position) : 0;
    }

    private void skipWhitespace() {
        while (position < text.length()) {
            char c = text.charAt(position);
            if (c != ' ' && c != '\t') {
                return;
            }
            position++;
        }
    }

    private HistoryFormatException error(String problem) {
        return new HistoryFormatException(lineNumber, problem);
    }
}
