package io.synod.coordination;

import io.synod.protocol.ElectionEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records a node's election events with the time each arrived, and checks the callback thread. */
final class ElectionRecorder implements ElectionListener {
    record Received(int group, ElectionEvent event, long atNanos, String thread) {}

    final int node;
    final List<Received> events = new CopyOnWriteArrayList<>();
    /** {@link ElectionEvent.EpochSeen} values, kept apart so {@link #last} stays about leadership. */
    final List<Long> seenEpochs = new CopyOnWriteArrayList<>();

    ElectionRecorder(int node) {
        this.node = node;
    }

    @Override
    public void onElection(int group, ElectionEvent event) {
        if (event instanceof ElectionEvent.EpochSeen seen) {
            seenEpochs.add(seen.epoch());
            return;
        }
        events.add(new Received(group, event, System.nanoTime(), Thread.currentThread().getName()));
    }

    /** The newest event for the group, or null. */
    ElectionEvent last(int group) {
        for (int i = events.size() - 1; i >= 0; i--) {
            if (events.get(i).group() == group) {
                return events.get(i).event();
            }
        }
        return null;
    }

    boolean leads(int group) {
        return last(group) instanceof ElectionEvent.Elected;
    }

    boolean follows(int group, int leader) {
        return last(group) instanceof ElectionEvent.LeaderIs l && l.leaderId() == leader;
    }

    List<Long> epochs(int group) {
        return events.stream().filter(r -> r.group() == group && r.event() instanceof ElectionEvent.Elected)
                .map(r -> ((ElectionEvent.Elected) r.event()).epoch()).toList();
    }

    /** When the first event matching the predicate arrived at or after {@code fromNanos}, or -1. */
    long firstAt(int group, long fromNanos, java.util.function.Predicate<ElectionEvent> match) {
        for (Received r : events) {
            if (r.group() == group && r.atNanos() >= fromNanos && match.test(r.event())) {
                return r.atNanos();
            }
        }
        return -1;
    }
}
