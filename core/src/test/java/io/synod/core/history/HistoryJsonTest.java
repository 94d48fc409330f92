package io.synod.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HistoryJsonTest {
    private static final String APPEND_INVOKE = "{\"process\":3,\"type\":\"invoke\",\"f\":\"append\",\"key\":\"k7\",\"value\":42,\"time\":123456}";
    private static final String APPEND_OK = "{\"process\":3,\"type\":\"ok\",\"f\":\"append\",\"key\":\"k7\",\"value\":42,\"time\":130011}";
    private static final String READ_INVOKE = "{\"process\":4,\"type\":\"invoke\",\"f\":\"read\",\"key\":\"k7\",\"value\":null,\"time\":130500}";
    private static final String READ_OK = "{\"process\":4,\"type\":\"ok\",\"f\":\"read\",\"key\":\"k7\",\"value\":[1,5,9],\"time\":131000}";

    private static History read(String text) throws IOException {
        return HistoryJson.read(new StringReader(text));
    }

    private static String write(History history) throws IOException {
        StringWriter out = new StringWriter();
        HistoryJson.write(history, out);
        return out.toString();
    }

    private static void assertRejected(String text, long lineNumber, String problem) {
        HistoryFormatException e = assertThrows(HistoryFormatException.class, () -> read(text));
        assertEquals(lineNumber, e.lineNumber(), e.getMessage());
        assertTrue(e.getMessage().startsWith("line " + lineNumber + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(problem), e.getMessage());
    }

    @Test
    void writesTheDocumentedFormExactly() throws IOException {
        HistoryRecorder recorder = new HistoryRecorder();
        int append = recorder.invokeAppend(3, "k7", 42, 123456);
        recorder.okAppend(append, 130011);
        int read = recorder.invokeRead(4, "k7", 130500);
        recorder.okRead(read, List.of(1L, 5L, 9L), 131000);
        assertEquals(APPEND_INVOKE + "\n" + APPEND_OK + "\n" + READ_INVOKE + "\n" + READ_OK + "\n", write(recorder.history()));
    }

    @Test
    void writesFailInfoEmptyListsNegativeValuesAndEscapedKeys() throws IOException {
        assertEquals("{\"process\":0,\"type\":\"fail\",\"f\":\"read\",\"key\":\"a\\\"b\\\\c\\n\\u0001\",\"value\":null,\"time\":0}",
                HistoryJson.toJsonLine(HistoryEvent.read(0, EventType.FAIL, "a\"b\\c\n\u0001", null, 0)));
        assertEquals("{\"process\":1,\"type\":\"info\",\"f\":\"append\",\"key\":\"k\",\"value\":-9223372036854775808,\"time\":9223372036854775807}",
                HistoryJson.toJsonLine(HistoryEvent.append(1, EventType.INFO, "k", Long.MIN_VALUE, Long.MAX_VALUE)));
        assertEquals("{\"process\":2,\"type\":\"ok\",\"f\":\"read\",\"key\":\"ключ\",\"value\":[],\"time\":5}",
                HistoryJson.toJsonLine(HistoryEvent.read(2, EventType.OK, "ключ", List.of(), 5)));
    }

    @Test
    void roundTripsRandomHistories() throws IOException {
        for (long seed = 0; seed < 200; seed++) {
            History history = randomHistory(new Random(seed));
            String text = write(history);
            History back = read(text);
            assertEquals(history, back, "seed " + seed);
            assertEquals(text, write(back), "seed " + seed);
            History fromBytes = HistoryJson.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
            assertEquals(history, fromBytes, "seed " + seed);
        }
    }

    /** Every kind of event and awkward keys (quotes, backslashes, control and non-ASCII characters). */
    private static History randomHistory(Random random) {
        String[] keys = {"k0", "k\"1", "k\\2", "k\t3", "ключ", "\u0000", ""};
        HistoryRecorder recorder = new HistoryRecorder();
        int[] outstanding = new int[4];
        boolean[] isRead = new boolean[4];
        java.util.Arrays.fill(outstanding, -1);
        long time = 0;
        long value = random.nextLong() / 2;
        for (int step = 0; step < 60; step++) {
            time += random.nextInt(3);
            int process = random.nextInt(4);
            if (outstanding[process] < 0) {
                String key = keys[random.nextInt(keys.length)];
                isRead[process] = random.nextBoolean();
                outstanding[process] = isRead[process] ? recorder.invokeRead(process, key, time)
                        : recorder.invokeAppend(process, key, value++, time);
                continue;
            }
            switch (random.nextInt(3)) {
                case 0 -> {
                    if (isRead[process]) {
                        List<Long> values = new ArrayList<>();
                        for (int i = random.nextInt(4); i > 0; i--) {
                            values.add(random.nextLong());
                        }
                        recorder.okRead(outstanding[process], values, time);
                    } else {
                        recorder.okAppend(outstanding[process], time);
                    }
                }
                case 1 -> recorder.fail(outstanding[process], time);
                default -> recorder.info(outstanding[process], time);
            }
            outstanding[process] = -1;
        }
        return recorder.history();
    }

    @Test
    void readsAnyFieldOrderWhitespaceCrLfAndAMissingFinalNewline() throws IOException {
        String reordered = "{ \"time\" : 123456 , \"value\":42,\"key\":\"k\\u0037\", \"f\":\"append\",\"type\":\"invoke\",\"process\":3 }";
        History history = read(reordered + "\r\n" + APPEND_OK);
        assertEquals(read(APPEND_INVOKE + "\n" + APPEND_OK + "\n"), history);
        assertEquals(0, read("").events().size());
    }

    @Test
    void rejectsBadJsonWithTheLineNumber() {
        assertRejected(APPEND_INVOKE + "\n{\"process\":3,", 2, "bad JSON");
        assertRejected("[1,2]", 1, "bad JSON: expected '{'");
        assertRejected(APPEND_INVOKE + " x", 1, "unexpected text after the object");
        assertRejected("{\"process\":3 \"type\":\"ok\"}", 1, "expected ',' or '}'");
        assertRejected("{\"process\":03}", 1, "bad JSON");
        assertRejected("{\"process\":-}", 1, "malformed number");
        assertRejected("{\"key\":\"abc}", 1, "unterminated string");
        assertRejected("{\"key\":\"a\\qb\"}", 1, "unknown escape");
        assertRejected("{\"key\":\"a\u0001b\"}", 1, "unescaped control character");
        assertRejected("{\"value\":nul}", 1, "bad JSON");
        assertRejected("{\"value\":" + "[".repeat(100) + "}", 1, "nested deeper than");
        assertRejected(APPEND_INVOKE + "\n\n" + APPEND_OK, 2, "empty line");
    }

    @Test
    void rejectsBytesThatAreNotUtf8WithTheLineNumber() {
        byte[] good = (APPEND_INVOKE + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] bad = APPEND_OK.replace("k7", "k\u00e9").getBytes(StandardCharsets.ISO_8859_1);
        byte[] text = new byte[good.length + bad.length];
        System.arraycopy(good, 0, text, 0, good.length);
        System.arraycopy(bad, 0, text, good.length, bad.length);
        HistoryFormatException e = assertThrows(HistoryFormatException.class,
                () -> HistoryJson.read(new ByteArrayInputStream(text)));
        assertEquals(2, e.lineNumber(), e.getMessage());
        assertTrue(e.getMessage().contains("not valid UTF-8"), e.getMessage());
    }

    /**
     * Randomly damaged files either load or fail with a {@link HistoryFormatException} naming a line,
     * never with an unchecked exception from inside the parser (docs/history-format.md: every decode fails clearly).
     */
    @Test
    void damagedInputFailsOnlyWithFormatErrors() throws IOException {
        String alphabet = "{}[]\":,0123456789-.eE+ \\u\tnulltruefalseprocesstypefkeyvaluetimeinvokeokfailinfoappendread\n\r\u00e9";
        for (long seed = 0; seed < 3000; seed++) {
            Random random = new Random(seed);
            StringBuilder text = new StringBuilder(write(randomHistory(random)));
            for (int edits = 1 + random.nextInt(4); edits > 0 && text.length() > 0; edits--) {
                int at = random.nextInt(text.length());
                char c = alphabet.charAt(random.nextInt(alphabet.length()));
                switch (random.nextInt(4)) {
                    case 0 -> text.insert(at, c);
                    case 1 -> text.deleteCharAt(at);
                    case 2 -> text.setCharAt(at, c);
                    default -> text.setLength(at); // a run killed while writing
                }
            }
            try {
                read(text.toString());
            } catch (HistoryFormatException e) {
                assertTrue(e.lineNumber() >= 1 && e.getMessage().startsWith("line " + e.lineNumber() + ": "),
                        "seed " + seed + ": " + e.getMessage());
            } catch (RuntimeException e) {
                throw new AssertionError("seed " + seed + ": unchecked exception for input:\n" + text, e);
            }
        }
    }

    @Test
    void rejectsMissingUnknownAndDuplicateFields() {
        assertRejected(APPEND_INVOKE.replace(",\"time\":123456", ""), 1, "missing field \"time\"");
        assertRejected(APPEND_INVOKE.replace("\"value\":42,", ""), 1, "missing field \"value\"");
        assertRejected(APPEND_INVOKE.replace("}", ",\"extra\":1}"), 1, "unknown field \"extra\"");
        assertRejected(APPEND_INVOKE.replace("}", ",\"time\":1}"), 1, "duplicate field \"time\"");
    }

    @Test
    void rejectsWrongTypesAndUnknownNames() {
        assertRejected(APPEND_INVOKE.replace("\"process\":3", "\"process\":\"3\""), 1, "field \"process\" must be a non-negative integer; got a string");
        assertRejected(APPEND_INVOKE.replace("\"process\":3", "\"process\":-3"), 1, "field \"process\": -3 is out of range");
        assertRejected(APPEND_INVOKE.replace("\"process\":3", "\"process\":2147483648"), 1, "field \"process\": 2147483648 is out of range");
        assertRejected(APPEND_INVOKE.replace("\"time\":123456", "\"time\":1.5"), 1, "field \"time\" must be an integer; got 1.5");
        assertRejected(APPEND_INVOKE.replace("\"time\":123456", "\"time\":1e3"), 1, "field \"time\" must be an integer; got 1e3");
        assertRejected(APPEND_INVOKE.replace("\"value\":42", "\"value\":99999999999999999999"), 1, "does not fit in a 64-bit integer");
        assertRejected(APPEND_INVOKE.replace("\"value\":42", "\"value\":null"), 1, "an append carries its value, an integer; got null");
        assertRejected(APPEND_INVOKE.replace("\"key\":\"k7\"", "\"key\":7"), 1, "field \"key\" must be a string; got the number 7");
        assertRejected(APPEND_INVOKE.replace("\"type\":\"invoke\"", "\"type\":\"done\""), 1, "field \"type\": unknown event type \"done\"");
        assertRejected(APPEND_INVOKE.replace("\"f\":\"append\"", "\"f\":\"cas\""), 1, "field \"f\": unknown function \"cas\"");
        assertRejected(APPEND_INVOKE.replace("\"f\":\"append\"", "\"f\":true"), 1, "field \"f\" must be a string; got a boolean");
        assertRejected(READ_INVOKE.replace("\"value\":null", "\"value\":[]"), 1, "a read carries null on invoke; got an array");
        assertRejected(READ_INVOKE + "\n" + READ_OK.replace("[1,5,9]", "null"), 2, "a read that completed ok carries the list it returned; got null");
        assertRejected(READ_INVOKE + "\n" + READ_OK.replace("[1,5,9]", "[1,\"5\",9]"), 2, "element 1 of the read's list must be an integer; got a string");
        assertRejected(READ_INVOKE + "\n" + READ_OK.replace("[1,5,9]", "{\"a\":1}"), 2, "got an object");
    }

    @Test
    void rejectsEventsThatDoNotFormAHistoryWithTheLineNumber() {
        assertRejected(APPEND_INVOKE + "\n" + APPEND_OK + "\n" + APPEND_OK.replace("130011", "140000"), 3,
                "completion without an invoke");
        assertRejected(APPEND_INVOKE + "\n" + APPEND_INVOKE.replace("123456", "123457"), 2, "still outstanding");
        assertRejected(APPEND_INVOKE + "\n" + APPEND_OK.replace("130011", "100"), 2, "time went backwards");
    }
}
