package io.synod.core.paxos;

/**
 * The rules of docs/membership.md that a negative control may switch off, one flag each. Every flag is
 * true in production; only the simulator's {@code membership-*} mutations clear one, to show the
 * simulator catches the unsafe variant.
 */
final class MembershipGuards {
    /** M3: phase 1 waits for a majority of every configuration that may govern a slot it reads. */
    boolean phase1ReadsEveryConfiguration = true;
    /** M2: a learner's acceptances and promises are never counted (the control counts them toward the voters' majority). */
    boolean learnersNeverCounted = true;
    /**
     * M5 (with M2's "in force only once chosen"): one change in flight, none before an entry of the leader's
     * own ballot is chosen, and a slot counted by the configuration chosen before it, never by one merely
     * appended (Raft's rule, the raft-dev 2015 single-server change bug).
     */
    boolean oneChosenChangeAtATime = true;
    /** M4: a change adds a learner, promotes one, or removes one member; never swaps voters in one step. */
    boolean singleStep = true;
    /** M6: a learner is promoted only once it has applied through the leader's commit point. */
    boolean promoteOnlyCaughtUp = true;
    /**
     * M8: with RS-Paxos coding, phase 1 needs {@code voters - F} promises of each membership (the control counts a
     * plain majority of the voters, too few to meet a coded write quorum {@code F + X} in X acceptors).
     */
    boolean codedReadQuorum = true;
    /**
     * M9: with RS-Paxos coding, a replica whose id is at or beyond the code length gets the whole value (the control
     * gives it shard {@code id mod N}, which a replica below N holds too, so F + X acceptances may hold fewer than X
     * distinct shards).
     */
    boolean fullCopiesBeyondCode = true;
}
