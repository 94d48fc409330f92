package io.synod.leases;

import io.synod.core.paxos.ClockReading;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.LeaseHooks;
import io.synod.core.paxos.LeaseStamp;
import io.synod.core.paxos.LeaseView;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Role;

/**
 * A lease policy as the group driver runs it: every hook goes to the policy unchanged, except that the
 * driver can forbid a local read for one request (a client asked for consistency LOG) and learn whether
 * the request it just proposed was answered under the lease (so the reply can say which path served
 * it). One per replica incarnation, touched by one caller at a time (the driver).
 */
public final class ReadGate implements LeaseHooks {
    /** The lease holders of a command's key in a cluster of a given size (bit i = node i). */
    @FunctionalInterface
    interface KeyHolders {
        long of(byte[] payload, int clusterSize);
    }

    private final LeaseHooks policy;
    /** Quorum and Megastore leases: who holds which key; null for the other policies. */
    private final KeyHolders holders;
    private LeaseView view;
    private boolean throughLog;
    private boolean servedLocally;

    private ReadGate(LeaseHooks policy, KeyHolders holders) {
        this.policy = policy;
        this.holders = holders;
    }

    /**
     * The gate around {@code policy}. Under a quorum lease a refused read's answer names the key's holders in the
     * configuration in force at this replica (for QUORUM and MEGASTORE the static one, version 0 forever); while
     * it is unknown (the state could not answer yet), none are named.
     */
    public static ReadGate of(LeaseHooks policy) {
        if (policy instanceof QuorumLease lease) {
            // The holders among the voters (rule QL1), as the read was decided: over the whole replica id space a
            // group of 3 voters with ids 0..62 named ids that run nowhere.
            return new ReadGate(policy, (payload, n) -> lease.readHoldersOf(payload));
        }
        return new ReadGate(policy, null);
    }

    /**
     * The replicas holding a lease on the key {@code payload} reads (bit i = replica id i), under a quorum or
     * Megastore lease, in the configuration in force at this replica: the hint a refused read's answer
     * carries to the client. -1 under other policies, and while the configuration is unknown.
     */
    public long holders(byte[] payload) {
        return holders == null || view == null ? -1 : holders.of(payload, view.clusterSize());
    }

    /** Before proposing one request: whether it must go through the log; clears {@link #servedLocally()}. */
    public void begin(boolean mustGoThroughLog) {
        throughLog = mustGoThroughLog;
        servedLocally = false;
    }

    /** After proposing it: whether the policy let the replica answer it locally. */
    public boolean servedLocally() {
        boolean served = servedLocally;
        throughLog = false;
        servedLocally = false;
        return served;
    }

    @Override
    public boolean mayServeLocalRead(Role role, Command read, long nowNanos) {
        if (throughLog) {
            return false;
        }
        boolean ok = policy.mayServeLocalRead(role, read, nowNanos);
        servedLocally |= ok;
        return ok;
    }

    @Override
    public boolean mayCommit(Entry entry, long nowNanos) {
        return policy.mayCommit(entry, nowNanos);
    }

    @Override
    public long requiredAcceptors(Entry entry) {
        return policy.requiredAcceptors(entry);
    }

    @Override
    public void attach(LeaseView view) {
        this.view = view;
        policy.attach(view);
    }

    @Override
    public void onClock(ClockReading reading) {
        policy.onClock(reading);
    }

    @Override
    public LeaseStamp stamp(long slot, Command command) {
        return policy.stamp(slot, command);
    }

    @Override
    public void onLeading(long commitSlot, long recoveredThroughSlot) {
        policy.onLeading(commitSlot, recoveredThroughSlot);
    }

    @Override
    public void onStepDown() {
        policy.onStepDown();
    }

    @Override
    public void onApplied(Entry entry) {
        policy.onApplied(entry);
    }

    @Override
    public void onMessage(Message message) {
        policy.onMessage(message);
    }

    @Override
    public void onSnapshotInstalled(long slot) {
        policy.onSnapshotInstalled(slot);
    }

    @Override
    public void onAcknowledged(int peer, long[] slots) {
        policy.onAcknowledged(peer, slots);
    }

    @Override
    public boolean answersWritesBeforeApply() {
        return policy.answersWritesBeforeApply();
    }

    @Override
    public boolean wantsNoop() {
        return policy.wantsNoop();
    }

    @Override
    public boolean mayAcceptProposals(long nowNanos) {
        return policy.mayAcceptProposals(nowNanos);
    }

    @Override
    public Command endLeaseCommand() {
        return policy.endLeaseCommand();
    }

    @Override
    public Command leaderProposal(long nextSlot) {
        return policy.leaderProposal(nextSlot); // quorum-auto: a lease configuration entry
    }

    @Override
    public String toString() {
        return policy.toString();
    }
}
