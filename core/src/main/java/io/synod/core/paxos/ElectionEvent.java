package io.synod.core.paxos;

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
}
