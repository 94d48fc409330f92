package io.synod.bench.torture;

import io.synod.core.history.History;
import io.synod.core.history.HistoryRecorder;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link HistoryRecorder} shared by the torture run's client threads. Every event is recorded under
 * one lock with its time taken inside that lock, so the file's line order is the real-time order and
 * times never decrease (docs/history-format.md, rules 1 and "Real-time order").
 */
final class SharedHistory {
    private final HistoryRecorder recorder = new HistoryRecorder();
    private final long originNanos = System.nanoTime();
    private final List<Long> okTimes = new ArrayList<>();
    private int ok;
    private int fail;
    private int info;

    private long now() {
        return System.nanoTime() - originNanos;
    }

    synchronized int invokeAppend(int process, String key, long value) {
        return recorder.invokeAppend(process, key, value, now());
    }

    synchronized int invokeRead(int process, String key) {
        return recorder.invokeRead(process, key, now());
    }

    synchronized void okAppend(int op) {
        long t = now();
        recorder.okAppend(op, t);
        okTimes.add(t);
        ok++;
    }

    synchronized void okRead(int op, long[] values) {
        long t = now();
        List<Long> list = new ArrayList<>(values.length);
        for (long v : values) {
            list.add(v);
        }
        recorder.okRead(op, list, t);
        okTimes.add(t);
        ok++;
    }

    synchronized void fail(int op) {
        recorder.fail(op, now());
        fail++;
    }

    synchronized void info(int op) {
        recorder.info(op, now());
        info++;
    }

    synchronized long nowNanos() {
        return now();
    }

    /** History time of the latest ok completion, or -1 if none. */
    synchronized long lastOkNanos() {
        return okTimes.isEmpty() ? -1 : okTimes.get(okTimes.size() - 1);
    }

    synchronized int ok() {
        return ok;
    }

    synchronized int failed() {
        return fail;
    }

    synchronized int info() {
        return info;
    }

    /** The longest time between {@code fromNanos} and {@code toNanos} (history times) with no operation completing ok. */
    synchronized long longestGapNanos(long fromNanos, long toNanos) {
        long longest = 0;
        long previous = fromNanos;
        for (long t : okTimes) {
            if (t < fromNanos) {
                continue;
            }
            if (t > toNanos) {
                break;
            }
            longest = Math.max(longest, t - previous);
            previous = t;
        }
        return Math.max(longest, toNanos - previous);
    }

    synchronized History history() {
        return recorder.history();
    }
}
