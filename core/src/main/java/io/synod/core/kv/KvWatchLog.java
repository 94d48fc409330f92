package io.synod.core.kv;

import io.synod.core.util.Check;
import io.synod.protocol.KeyChange;
import io.synod.protocol.KeyChangeBatch;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The state machine's side of watches: every change to a key, in apply order, as an event stream by slot. Each event
 * has a position (slot, index within the slot); a watcher reads the events of one key or one prefix from a position
 * on, in that order, and resumes after a reconnect from the position after the last event it saw — on any replica,
 * since every replica applies the same log and so produces the same events at the same positions.
 *
 * <p>Bounded: the newest {@code capacity} events are kept. A read from a position older than what is kept (or older
 * than the snapshot this replica was restored from: the events before it were never applied here) is answered
 * {@link KeyChangeBatch#compacted()}; the watcher must then read the current state and watch on from there (etcd's
 * compaction rule). The log is not part of the snapshot: it is what this replica applied, not replicated state.
 */
public final class KvWatchLog {
    /** Default number of events kept. */
    public static final int DEFAULT_CAPACITY = 65_536;

    private final int capacity;
    private final ArrayDeque<KeyChange> events = new ArrayDeque<>();
    /** Events at positions before (firstSlot, firstIndex) are not here. */
    private long firstSlot = 1;
    private int firstIndex;
    private long lastSlot;
    private int indexInLastSlot;
    /** Restored from a snapshot and nothing recorded since: where the kept events start is not known yet. */
    private boolean restoredUnknown;

    public KvWatchLog(int capacity) {
        Check.argument(capacity > 0, "watch log capacity must be positive");
        this.capacity = capacity;
    }

    /** Records a change made at {@code slot}; slots must not decrease. */
    public void record(long slot, String key, KeyChange.Type type) {
        Check.state(slot >= lastSlot || restoredUnknown, "watch events must be recorded in slot order");
        if (restoredUnknown) {
            restoredUnknown = false;
            firstSlot = slot;
            firstIndex = 0;
            lastSlot = slot - 1;
        }
        if (slot != lastSlot) {
            lastSlot = slot;
            indexInLastSlot = 0;
        }
        events.addLast(new KeyChange(slot, indexInLastSlot++, key, type));
        if (events.size() > capacity) {
            KeyChange dropped = events.removeFirst();
            firstSlot = dropped.slot();
            firstIndex = dropped.index() + 1;
        }
    }

    /**
     * The state was replaced by a snapshot (whose slot the state machine is not told): events before the next one
     * recorded were never applied here, so reads from before it are answered compacted (the safe side).
     */
    public void restored() {
        events.clear();
        firstSlot = Long.MAX_VALUE;
        firstIndex = 0;
        restoredUnknown = true;
    }

    /**
     * The events from position ({@code fromSlot}, {@code fromIndex}) on, of {@code key} exactly ({@code prefix}
     * false) or of every key starting with it, at most {@code limit}.
     */
    public KeyChangeBatch read(long fromSlot, int fromIndex, String key, boolean prefix, int limit) {
        Check.argument(limit > 0, "watch read limit must be positive");
        boolean compacted = fromSlot < firstSlot || (fromSlot == firstSlot && fromIndex < firstIndex);
        List<KeyChange> found = new ArrayList<>();
        long nextSlot = Math.max(fromSlot, lastSlot + 1);
        int nextIndex = fromSlot > lastSlot ? fromIndex : 0;
        // Walk back from the newest event to the read position (a watcher that keeps up reads only the newest few),
        // then forward in order.
        List<KeyChange> newer = new ArrayList<>();
        Iterator<KeyChange> back = events.descendingIterator();
        while (back.hasNext()) {
            KeyChange event = back.next();
            if (event.slot() < fromSlot || (event.slot() == fromSlot && event.index() < fromIndex)) {
                break;
            }
            newer.add(event);
        }
        for (int i = newer.size() - 1; i >= 0; i--) {
            KeyChange event = newer.get(i);
            if (prefix ? event.key().startsWith(key) : event.key().equals(key)) {
                if (found.size() == limit) {
                    nextSlot = event.slot();
                    nextIndex = event.index();
                    break;
                }
                found.add(event);
            }
        }
        return new KeyChangeBatch(List.copyOf(found), nextSlot, nextIndex, compacted);
    }

    /** Number of events kept. */
    public int size() {
        return events.size();
    }

    /** Records what a key-value command changed: nothing for reads, errors and failed swaps. */
    public void recordChange(long slot, KvCommand command, boolean existed, KvResult result) {
        if (command.isReadOnly() || result instanceof KvResult.Error
                || (result instanceof KvResult.Swapped swapped && !swapped.swapped())) {
            return;
        }
        if (command instanceof KvCommand.Delete) {
            if (existed) {
                record(slot, command.key(), KeyChange.Type.DELETE);
            }
        } else {
            record(slot, command.key(), KeyChange.Type.PUT);
        }
    }
}
