package io.synod.core.paxos;

import java.util.List;

/**
 * What a replica finds on its disk when it starts: the highest ballot it promised, its latest
 * snapshot and the accepted entries above the snapshot (in any order; at most one per slot). The
 * runtime (or the simulator's disk model) builds it from what was durably written.
 */
public record DurableState(Ballot promised, Snapshot snapshot, List<Entry> entries) {
    public static final DurableState EMPTY = new DurableState(Ballot.ZERO, Snapshot.EMPTY, List.of());

    public DurableState {
        if (promised == null || snapshot == null || entries == null) {
            throw new IllegalArgumentException("durable state parts must not be null");
        }
        entries = List.copyOf(entries);
    }
}
