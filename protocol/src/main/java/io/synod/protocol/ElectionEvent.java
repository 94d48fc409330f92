package io.synod.protocol;

/**
 * What the election service (ZooKeeper through Curator in production, a possibly hostile fake in
 * the simulator) tells a replica. These are hints: the oracle may name two leaders at once, hand
 * out an epoch that is already stale, announce late or flap. The replica stays safe regardless,
 * because only a completed phase 1 with a quorum of durable promises lets it serve.
 */
public sealed interface ElectionEvent {
    /** "You lead with this epoch": start phase 1 with ballot (epoch, self). */
    record Elected(long epoch) implements ElectionEvent {}

    /** "Node {@code leaderId} leads" (or -1: nobody known). Stops leading if it is not us. */
    record LeaderIs(int leaderId) implements ElectionEvent {}

    /**
     * "The newest epoch handed out for this group is {@code epoch}" (the coordination layer watches the
     * epoch counter). The replica refuses ballots running more than a bounded slack ahead of it
     * (docs/security.md, "Defence in depth in the replica"); an older value than one seen is ignored.
     */
    record EpochSeen(long epoch) implements ElectionEvent {}
}
