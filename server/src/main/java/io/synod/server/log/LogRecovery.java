package io.synod.server.log;

import io.synod.core.paxos.Entry;
import java.util.List;
import java.util.TreeMap;

/**
 * What one group's log records held on disk: the newest entry per slot above the compaction floor,
 * the floor, the highest slot seen in any record, and what was wrong (torn tails were truncated;
 * corruptions mean records were lost and the replica must repair from its peers).
 */
public record LogRecovery(TreeMap<Long, Entry> entries, long compactedThrough, long maxSlotSeen,
        List<String> tornTails, List<String> corruptions) {
    public boolean corrupted() {
        return !corruptions.isEmpty();
    }

    static LogRecovery empty() {
        return new LogRecovery(new TreeMap<>(), 0, 0, List.of(), List.of());
    }
}
