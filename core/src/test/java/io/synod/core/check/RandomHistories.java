package io.synod.core.check;

import io.synod.core.history.EventType;
import io.synod.core.history.History;
import io.synod.core.history.HistoryEvent;
import io.synod.core.history.HistoryRecorder;
import io.synod.core.history.InvalidHistoryException;
import io.synod.core.history.OpFunction;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random list-append histories for tests: {@link #linearizable} runs a real sequential object under
 * random concurrency (every operation takes effect at one random moment between its invoke and its
 * completion, or never), so its history is linearizable by construction; {@link #corrupt} then damages
 * one event, which may or may not break linearizability.
 */
final class RandomHistories {
    private RandomHistories() {
    }

    /** Shape of a generated history. */
    record Shape(int processes, int keys, int operations, double readFraction, double infoFraction,
            double failFraction, long maxStepNanos) {
    }

    private static final class Pending {
        final int opId;
        final String key;
        final OpFunction function;
        final long appendValue;
        boolean applied;
        List<Long> readResult;

        Pending(int opId, String key, OpFunction function, long appendValue) {
            this.opId = opId;
            this.key = key;
            this.function = function;
            this.appendValue = appendValue;
        }
    }

    static History linearizable(Random random, Shape shape) {
        HistoryRecorder recorder = new HistoryRecorder();
        Map<String, List<Long>> lists = new HashMap<>();
        Pending[] outstanding = new Pending[shape.processes()];
        // Appends that returned info but may still take effect later (a message still in flight).
        List<Pending> inFlight = new ArrayList<>();
        long time = 0;
        long nextValue = 1;
        int invoked = 0;
        while (true) {
            boolean anyOutstanding = false;
            for (Pending pending : outstanding) {
                anyOutstanding |= pending != null;
            }
            if (invoked >= shape.operations() && (!anyOutstanding || random.nextInt(20) == 0)) {
                break; // sometimes stop with operations still pending
            }
            time += random.nextInt((int) shape.maxStepNanos() + 1);
            if (!inFlight.isEmpty() && random.nextInt(4) == 0) {
                Pending late = inFlight.remove(random.nextInt(inFlight.size()));
                if (random.nextBoolean()) {
                    lists.computeIfAbsent(late.key, k -> new ArrayList<>()).add(late.appendValue);
                }
                continue;
            }
            int process = random.nextInt(shape.processes());
            Pending pending = outstanding[process];
            if (pending == null) {
                if (invoked >= shape.operations()) {
                    continue;
                }
                String key = "k" + random.nextInt(shape.keys());
                if (random.nextDouble() < shape.readFraction()) {
                    outstanding[process] = new Pending(recorder.invokeRead(process, key, time), key, OpFunction.READ, 0);
                } else {
                    long value = nextValue++;
                    outstanding[process] = new Pending(recorder.invokeAppend(process, key, value, time), key,
                            OpFunction.APPEND, value);
                }
                invoked++;
            } else if (!pending.applied && random.nextBoolean()) {
                List<Long> list = lists.computeIfAbsent(pending.key, k -> new ArrayList<>());
                if (pending.function == OpFunction.APPEND) {
                    list.add(pending.appendValue);
                } else {
                    pending.readResult = List.copyOf(list);
                }
                pending.applied = true;
            } else {
                double outcome = random.nextDouble();
                if (outcome < shape.infoFraction()) {
                    recorder.info(pending.opId, time);
                    if (!pending.applied && pending.function == OpFunction.APPEND) {
                        inFlight.add(pending);
                    }
                } else if (outcome < shape.infoFraction() + shape.failFraction() && !pending.applied) {
                    recorder.fail(pending.opId, time);
                } else if (pending.applied) {
                    if (pending.function == OpFunction.APPEND) {
                        recorder.okAppend(pending.opId, time);
                    } else {
                        recorder.okRead(pending.opId, pending.readResult, time);
                    }
                } else {
                    continue;
                }
                outstanding[process] = null;
            }
        }
        return recorder.history();
    }

    /**
     * One random damage to one event: a read loses, gains, reorders or swaps values, or an append's
     * outcome flips between ok, fail and info. Returns null if the damage made the events invalid as
     * a history (so there is nothing to check).
     */
    static History corrupt(Random random, History history) {
        List<HistoryEvent> events = new ArrayList<>(history.events());
        List<Integer> completions = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).type() != EventType.INVOKE) {
                completions.add(i);
            }
        }
        if (completions.isEmpty()) {
            return null;
        }
        int index = completions.get(random.nextInt(completions.size()));
        HistoryEvent event = events.get(index);
        HistoryEvent damaged;
        if (event.function() == OpFunction.APPEND) {
            EventType[] types = {EventType.OK, EventType.FAIL, EventType.INFO};
            EventType type = types[random.nextInt(types.length)];
            damaged = HistoryEvent.append(event.process(), type, event.key(), event.appendValue(), event.timeNanos());
        } else if (event.type() == EventType.OK) {
            damaged = HistoryEvent.read(event.process(), EventType.OK, event.key(),
                    damageList(random, event.readValues(), events), event.timeNanos());
        } else {
            return null;
        }
        events.set(index, damaged);
        try {
            return History.of(events);
        } catch (InvalidHistoryException e) {
            return null;
        }
    }

    private static List<Long> damageList(Random random, List<Long> values, List<HistoryEvent> events) {
        List<Long> list = new ArrayList<>(values);
        switch (random.nextInt(4)) {
            case 0 -> {
                if (!list.isEmpty()) {
                    list.remove(random.nextInt(list.size()));
                }
            }
            case 1 -> {
                // a value appended somewhere in the history (maybe to another key, maybe failed), or a fresh one
                List<Long> appended = new ArrayList<>();
                for (HistoryEvent event : events) {
                    if (event.function() == OpFunction.APPEND) {
                        appended.add(event.appendValue());
                    }
                }
                long value = appended.isEmpty() || random.nextInt(4) == 0 ? 1_000_000 : appended.get(random.nextInt(appended.size()));
                list.add(random.nextInt(list.size() + 1), value);
            }
            case 2 -> {
                if (list.size() >= 2) {
                    int i = random.nextInt(list.size() - 1);
                    Long first = list.get(i);
                    list.set(i, list.get(i + 1));
                    list.set(i + 1, first);
                }
            }
            default -> {
                List<List<Long>> otherReads = new ArrayList<>();
                for (HistoryEvent event : events) {
                    if (event.readValues() != null) {
                        otherReads.add(event.readValues());
                    }
                }
                list = new ArrayList<>(otherReads.get(random.nextInt(otherReads.size())));
            }
        }
        return list;
    }
}
