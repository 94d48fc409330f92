package io.synod.server.group.driver;

import io.synod.core.paxos.Role;

/**
 * A group's state as its driver knows it after a pass: the replica's role, promised epoch, leader, slots, and
 * whether the group serves. The runner publishes it (the server as its group status frame).
 *
 * @param leaderHint this replica's id if it leads, else the leader it last heard of (-1: none)
 */
public record GroupState(int group, Role role, long promisedEpoch, int leaderHint, long commitSlot, long appliedSlot,
        long snapshotSlot, Serving serving) {
    /** Whether the group serves: it does, it repairs its damaged log first (no votes, no election), or it failed. */
    public enum Serving { SERVING, REPAIRING, FAILED }
}
