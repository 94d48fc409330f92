package io.synod.coordination;

/**
 * How far a member's log for one group has got, as published in its member znode: the epoch of
 * its newest accepted entry and its last log slot. PaxStore (Tan et al., NPC 2014, §3.2) prefers
 * the member with the greatest (epoch, last slot) as leader, which keeps phase 1 short; this
 * is only a preference, correctness never depends on it.
 */
public record GroupProgress(long epoch, long lastSlot) implements Comparable<GroupProgress> {

    public static final GroupProgress NONE = new GroupProgress(0, 0);

    public GroupProgress {
        if (epoch < 0 || lastSlot < 0) {
            throw new IllegalArgumentException("group progress must be >= 0, got epoch " + epoch
                    + " last slot " + lastSlot);
        }
    }

    /** Lexicographic: epoch first, then last slot. */
    @Override
    public int compareTo(GroupProgress other) {
        int byEpoch = Long.compare(epoch, other.epoch);
        return byEpoch != 0 ? byEpoch : Long.compare(lastSlot, other.lastSlot);
    }
}
