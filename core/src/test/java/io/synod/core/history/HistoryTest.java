package io.synod.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryTest {
    private static HistoryEvent appendEvent(int process, EventType type, String key, long value, long timeNanos) {
        return HistoryEvent.append(process, type, key, value, timeNanos);
    }

    private static InvalidHistoryException assertInvalid(int eventIndex, String messagePart, HistoryEvent... events) {
        InvalidHistoryException e = assertThrows(InvalidHistoryException.class, () -> History.of(Arrays.asList(events)));
        assertEquals(eventIndex, e.eventIndex(), e.getMessage());
        assertTrue(e.getMessage().startsWith("event " + eventIndex + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
        return e;
    }

    @Test
    void pairsInvokesWithCompletionsAndTreatsPendingAsInfo() {
        History history = History.of(List.of(
                appendEvent(0, EventType.INVOKE, "k", 1, 10),
                HistoryEvent.read(1, EventType.INVOKE, "k", null, 11),
                appendEvent(0, EventType.OK, "k", 1, 12),
                HistoryEvent.read(1, EventType.OK, "k", List.of(1L), 13),
                appendEvent(2, EventType.INVOKE, "j", 2, 14)));
        List<Operation> operations = history.operations();
        assertEquals(3, operations.size());
        assertEquals(new Operation(0, 0, OpFunction.APPEND, "k", 1, null, EventType.OK, 2, 10, 12), operations.get(0));
        assertEquals(new Operation(1, 1, OpFunction.READ, "k", 0, List.of(1L), EventType.OK, 3, 11, 13), operations.get(1));
        Operation pending = operations.get(2);
        assertTrue(pending.isPending());
        assertEquals(EventType.INFO, pending.outcome());
        assertEquals(-1, pending.completionIndex());
        assertEquals(List.of("k", "j"), new ArrayList<>(history.keys()));
    }

    @Test
    void rejectsCompletionWithoutInvoke() {
        assertInvalid(0, "completion without an invoke: process 3", appendEvent(3, EventType.OK, "k", 1, 0));
    }

    @Test
    void rejectsSecondInvokeWhileOneIsOutstanding() {
        assertInvalid(1, "process 0 invoked a second operation while the one invoked at event 0 is still outstanding",
                appendEvent(0, EventType.INVOKE, "k", 1, 0),
                HistoryEvent.read(0, EventType.INVOKE, "k", null, 1));
    }

    @Test
    void rejectsTimeGoingBackwards() {
        assertInvalid(1, "time went backwards: 4 ns after 5 ns",
                appendEvent(0, EventType.INVOKE, "k", 1, 5),
                appendEvent(0, EventType.OK, "k", 1, 4));
    }

    @Test
    void rejectsCompletionOfAnotherKeyOrFunctionOrValue() {
        assertInvalid(1, "does not match the outstanding invoke",
                appendEvent(0, EventType.INVOKE, "k", 1, 0), appendEvent(0, EventType.OK, "j", 1, 1));
        assertInvalid(1, "does not match the outstanding invoke",
                appendEvent(0, EventType.INVOKE, "k", 1, 0), HistoryEvent.read(0, EventType.FAIL, "k", null, 1));
        assertInvalid(1, "completion carries append value 2 but the invoke at event 0 appended 1",
                appendEvent(0, EventType.INVOKE, "k", 1, 0), appendEvent(0, EventType.OK, "k", 2, 1));
    }

    @Test
    void rejectsTheSameAppendValueTwiceOnOneKeyButNotAcrossKeys() {
        assertInvalid(2, "value 1 was already appended to key k at event 0",
                appendEvent(0, EventType.INVOKE, "k", 1, 0),
                appendEvent(0, EventType.FAIL, "k", 1, 1),
                appendEvent(1, EventType.INVOKE, "k", 1, 2));
        History.of(List.of(appendEvent(0, EventType.INVOKE, "k", 1, 0), appendEvent(1, EventType.INVOKE, "j", 1, 1)));
    }

    @Test
    void eventsRejectMalformedValues() {
        assertThrows(IllegalArgumentException.class, () -> HistoryEvent.read(0, EventType.INVOKE, "k", List.of(1L), 0));
        assertThrows(NullPointerException.class, () -> HistoryEvent.read(0, EventType.OK, "k", null, 0));
        assertThrows(NullPointerException.class, () -> HistoryEvent.read(0, EventType.OK, "k", Arrays.asList(1L, null), 0));
        assertThrows(IllegalArgumentException.class, () -> appendEvent(-1, EventType.INVOKE, "k", 1, 0));
        assertThrows(IllegalArgumentException.class, () -> appendEvent(0, EventType.INVOKE, "k", 1, -1));
        assertThrows(IllegalStateException.class, () -> HistoryEvent.read(0, EventType.INVOKE, "k", null, 0).appendValue());
    }

    @Test
    void recorderProducesTheSameHistoryAsItsEvents() {
        HistoryRecorder recorder = new HistoryRecorder();
        int append = recorder.invokeAppend(0, "k", 7, 100);
        int read = recorder.invokeRead(1, "k", 101);
        recorder.okAppend(append, 102);
        recorder.okRead(read, List.of(7L), 103);
        int failed = recorder.invokeAppend(0, "k", 8, 104);
        recorder.fail(failed, 105);
        int timedOut = recorder.invokeRead(0, "k", 106);
        recorder.info(timedOut, 107);
        recorder.invokeAppend(2, "k", 9, 108);
        assertEquals(List.of(0, 1, 4, 6), List.of(append, read, failed, timedOut));
        assertEquals(9, recorder.eventCount());
        History expected = History.of(List.of(
                appendEvent(0, EventType.INVOKE, "k", 7, 100),
                HistoryEvent.read(1, EventType.INVOKE, "k", null, 101),
                appendEvent(0, EventType.OK, "k", 7, 102),
                HistoryEvent.read(1, EventType.OK, "k", List.of(7L), 103),
                appendEvent(0, EventType.INVOKE, "k", 8, 104),
                appendEvent(0, EventType.FAIL, "k", 8, 105),
                HistoryEvent.read(0, EventType.INVOKE, "k", null, 106),
                HistoryEvent.read(0, EventType.INFO, "k", null, 107),
                appendEvent(2, EventType.INVOKE, "k", 9, 108)));
        assertEquals(expected, recorder.history());
        assertEquals(expected.operations(), recorder.history().operations());
    }

    @Test
    void recorderRejectsBadCallsAtOnce() {
        HistoryRecorder recorder = new HistoryRecorder();
        int append = recorder.invokeAppend(0, "k", 1, 10);
        InvalidHistoryException doubleInvoke =
                assertThrows(InvalidHistoryException.class, () -> recorder.invokeRead(0, "k", 11));
        assertTrue(doubleInvoke.getMessage().contains("still outstanding"), doubleInvoke.getMessage());
        InvalidHistoryException wrongKind =
                assertThrows(InvalidHistoryException.class, () -> recorder.okRead(append, List.of(), 11));
        assertTrue(wrongKind.getMessage().contains("which is an append"), wrongKind.getMessage());
        InvalidHistoryException backwards =
                assertThrows(InvalidHistoryException.class, () -> recorder.okAppend(append, 9));
        assertTrue(backwards.getMessage().contains("time went backwards"), backwards.getMessage());
        recorder.okAppend(append, 12);
        InvalidHistoryException twice = assertThrows(InvalidHistoryException.class, () -> recorder.fail(append, 13));
        assertTrue(twice.getMessage().contains("already completed"), twice.getMessage());
        InvalidHistoryException unknown = assertThrows(InvalidHistoryException.class, () -> recorder.info(42, 13));
        assertTrue(unknown.getMessage().contains("no operation has that id"), unknown.getMessage());
        int read = recorder.invokeRead(0, "k", 14);
        InvalidHistoryException readAsAppend =
                assertThrows(InvalidHistoryException.class, () -> recorder.okAppend(read, 15));
        assertTrue(readAsAppend.getMessage().contains("which is a read"), readAsAppend.getMessage());
        // The failed calls recorded nothing.
        assertEquals(3, recorder.eventCount());
    }
}
