package io.synod.client;

import io.synod.core.history.HistoryRecorder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A history recorded by several client threads of a cluster test (the lease tests of this package):
 * every event under one lock with its time taken inside it, so event order is real-time order.
 */
final class SharedHistory {
    private final HistoryRecorder recorder = new HistoryRecorder();
    private final long origin = System.nanoTime();

    synchronized int invokeAppend(int process, String key, long value) {
        return recorder.invokeAppend(process, key, value, System.nanoTime() - origin);
    }

    synchronized int invokeRead(int process, String key) {
        return recorder.invokeRead(process, key, System.nanoTime() - origin);
    }

    synchronized void okAppend(int op) {
        recorder.okAppend(op, System.nanoTime() - origin);
    }

    synchronized void okRead(int op, long[] elements) {
        List<Long> list = new ArrayList<>(elements.length);
        for (long e : elements) {
            list.add(e);
        }
        recorder.okRead(op, list, System.nanoTime() - origin);
    }

    synchronized void fail(int op) {
        recorder.fail(op, System.nanoTime() - origin);
    }

    synchronized void info(int op) {
        recorder.info(op, System.nanoTime() - origin);
    }

    /**
     * Appends {@code value} to {@code key} through {@code client} as process {@code process} and records it (the wait,
     * up to 90 s, outside the lock); true if acknowledged, else recorded as indeterminate: it may or may not have been
     * applied.
     */
    boolean append(int process, SynodClient client, String key, long value) {
        int op = invokeAppend(process, key, value);
        try {
            client.append(key, value).get(90, TimeUnit.SECONDS);
            okAppend(op);
            return true;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            info(op);
            return false;
        }
    }

    synchronized io.synod.core.history.History history() {
        return recorder.history();
    }
}
