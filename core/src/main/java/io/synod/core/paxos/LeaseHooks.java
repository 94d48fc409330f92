package io.synod.core.paxos;

/**
 * Where lease policies plug into the replica (module {@code leases} implements them: LeaseGuard
 * leader leases, Moraru quorum leases). The replica asks the three questions below and reports what
 * a policy needs to know through the {@code on...} methods; every answer must be a pure function of
 * what the policy was told (and of its {@link LeaseView}): no clocks of its own, no randomness.
 *
 * <p>Everything but the three questions has a default that does nothing, and {@link #NONE} answers
 * like a replica without leases, so a replica with {@code NONE} behaves exactly as one without this
 * interface.
 */
public interface LeaseHooks {
    /**
     * May this replica answer the read-only {@code read} from its local state now, without a log
     * round? Asked of a LEADER that has applied everything it knows to be committed, and of a
     * FOLLOWER (a quorum-lease holder, Moraru §3) before it would answer NOT_LEADER.
     */
    boolean mayServeLocalRead(Role role, Command read, long nowNanos);

    /**
     * May {@code entry}, already accepted by a write quorum and by {@link #requiredAcceptors}, be
     * committed now? LeaseGuard's deferred commit answers "not yet" for a new leader's first
     * entries until the old leader's lease has surely expired.
     */
    boolean mayCommit(Entry entry, long nowNanos);

    /**
     * Bit set (bit i = node i) of acceptors that must have accepted {@code entry} before it
     * commits, beyond the write quorum: quorum-lease holders of the keys it writes (Moraru §3).
     */
    long requiredAcceptors(Entry entry);

    /** Called once, when the replica is built: the policy's read-only view of it. */
    default void attach(LeaseView view) {}

    /** The runtime handed in a new clock reading ({@link Replica#observeClock}); {@link LeaseView#clock()} has it too. */
    default void onClock(ClockReading reading) {}

    /**
     * The stamp of a new entry this leader creates in {@code slot} (LeaseGuard §3: the leader's
     * clock interval at creation), or null. Re-proposals keep the stamp they had.
     */
    default LeaseStamp stamp(long slot, Command command) {
        return null;
    }

    /**
     * Phase 1 is over and this replica leads: slots {@code commitSlot + 1 .. recoveredThroughSlot}
     * hold what phase 1 recovered and re-proposed (the limbo region, LeaseGuard §3.3); they are in
     * the log ({@link LeaseView#entry}).
     */
    default void onLeading(long commitSlot, long recoveredThroughSlot) {}

    /** This replica stopped leading (or gave up phase 1). */
    default void onStepDown() {}

    /** A chosen entry was applied (no-ops included), in slot order. */
    default void onApplied(Entry entry) {}

    /**
     * A message from a peer arrived (before the replica handles it): its sender, ballot and contents.
     * A {@link Message.Lease} (a policy's own message, sent with {@link LeaseView#send}) reaches only
     * this method: the replica does nothing else with it.
     */
    default void onMessage(Message message) {}

    /** A snapshot replaced the state through {@code slot}: entries up to there were never seen one by one. */
    default void onSnapshotInstalled(long slot) {}

    /** Leader side: {@code peer} acknowledged {@code slots} in this leader's ballot (Accepted). */
    default void onAcknowledged(int peer, long[] slots) {}

    /**
     * Leader side: may the leader answer a client's write as soon as the write's own slot may commit
     * (a write quorum, {@link #requiredAcceptors} and {@link #mayCommit} hold for it, and every earlier
     * uncommitted slot has a write quorum so its value is the chosen one), before the slots ahead of
     * it commit and before it is applied? Moraru §3 acknowledges a write of k once every holder of k
     * (and a majority) accepted it; in-order commit would make it wait for the holders of every key
     * written in the slots ahead of it, e.g. the farthest replica.
     *
     * <p>Only a policy whose local reads refuse a key while an accepted entry past the applied slot
     * writes it may say yes (quorum leases, rule 4d): any read that could be served without the
     * answered write then waits until it is applied. A leader lease reads the leader's applied state
     * and must say no. The answer's result comes from {@link StateMachine#resultBeforeApply}; a
     * write whose result is not certain is answered when it applies, as always.
     */
    default boolean answersWritesBeforeApply() {
        return false;
    }

    /**
     * Leader tick: whether the leader should append a no-op now to keep its lease alive (LeaseGuard:
     * an idle leader's newest committed entry ages; a fresh one renews the lease).
     */
    default boolean wantsNoop() {
        return false;
    }

    /**
     * Whether a leader may take new client commands into its log now. A leader that may not answers
     * BUSY (the command was never logged: safe to retry); commands it queued wait, and the leader tick
     * offers them again. LeaseGuard says no while a leader hands over (after its end-lease entry), and
     * its "log lease" baseline (evaluation, Fig. 7) while a new leader waits for the old lease.
     */
    default boolean mayAcceptProposals(long nowNanos) {
        return true;
    }

    /**
     * The entry a leader appends on a planned hand-over ({@link Replica#handOver()}), or null if the
     * policy has none (LeaseGuard: the end-lease entry, after which the leader stops lease reads). It
     * must be a no-op to the state machine ({@link Command#isNoop()}).
     */
    default Command endLeaseCommand() {
        return null;
    }

    /**
     * Leader tick, with room in the pipeline window: a command the policy wants the leader to append at
     * {@code nextSlot} (e.g. a quorum-lease configuration agreed through the log, Moraru §3), or null.
     * It is appended like a no-op: no client awaits it. Must be a valid state-machine command.
     */
    default Command leaderProposal(long nextSlot) {
        return null;
    }

    /** No leases: every read goes through the log; every quorum-accepted entry commits at once. */
    LeaseHooks NONE = new LeaseHooks() {
        @Override
        public boolean mayServeLocalRead(Role role, Command read, long nowNanos) {
            return false;
        }

        @Override
        public boolean mayCommit(Entry entry, long nowNanos) {
            return true;
        }

        @Override
        public long requiredAcceptors(Entry entry) {
            return 0L;
        }

        @Override
        public String toString() {
            return "no-lease";
        }
    };
}
