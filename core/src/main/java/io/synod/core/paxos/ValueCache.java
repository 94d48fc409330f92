package io.synod.core.paxos;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whole values of coded entries, by slot, bounded in count and bytes (least recently used evicted):
 * the leader keeps what it encoded, and any replica keeps what it rebuilt, so it can apply, answer
 * and serve catch-up without another recovery read (RS-Paxos, Mu et al. 2014, §4: the leader holds
 * the full value). A hit must be the same value as the entry asks for (client id, sequence, length
 * and checksum), since a slot may hold different values in different ballots.
 */
final class ValueCache {
    private record Cached(Command command, CodedValue coding) {}

    private final int maxEntries;
    private final long maxBytes;
    private long bytes;
    private final LinkedHashMap<Long, Cached> values = new LinkedHashMap<>(16, 0.75f, true);

    ValueCache(int maxEntries, long maxBytes) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    void put(long slot, Command full, CodedValue coding) {
        if (maxEntries == 0) {
            return;
        }
        Cached previous = values.put(slot, new Cached(full, coding.withShard(null)));
        if (previous != null) {
            bytes -= previous.command.payload().length;
        }
        bytes += full.payload().length;
        Iterator<Map.Entry<Long, Cached>> oldest = values.entrySet().iterator();
        while ((values.size() > maxEntries || bytes > maxBytes) && values.size() > 1) {
            bytes -= oldest.next().getValue().command.payload().length;
            oldest.remove();
        }
    }

    /** The whole command of {@code entry}'s coded value, or null. */
    Command get(Entry entry) {
        Cached cached = values.get(entry.slot());
        if (cached == null || !cached.coding.sameValue(entry.coded())
                || cached.command.clientId() != entry.command().clientId()
                || cached.command.sequence() != entry.command().sequence()) {
            return null;
        }
        return cached.command;
    }
}
