package io.synod.core.paxos;

import java.util.Collection;
import java.util.TreeMap;

/**
 * The coding and the membership a leader's commit rule and sends follow (docs/erasure.md "Coding changes",
 * docs/membership.md): those in effect at the next slot to commit, and the changes its own log holds past it.
 *
 * <p>Slot s commits with the configuration in effect at s, i.e. after every change entry at a slot below s.
 * Slots commit in order, so when slot s is checked every slot below it is committed and that configuration is
 * known exactly: the applied one changed by every change entry committed since (rule M1).
 */
final class LeaderConfigurations {
    private final ReplicaContext ctx;
    private final Acceptor acceptor;
    private final Learner learner;
    /** The coding in effect at slot commitSlot + 1: the applied coding changed by every change entry committed since. */
    private Coding committedCoding;
    /** The highest slot where this leader appended a coding change (0 if none). */
    private long lastChangeSlot;
    /**
     * The membership in force at slot commitSlot + 1 (docs/membership.md rule M1): the applied one changed by
     * every change entry committed since; slots commit in order, so each is counted with its own configuration.
     */
    private GroupMembership committedMembership;
    /** The newest membership in this leader's log, chosen or not (counted only under the Raft-rule negative control). */
    private GroupMembership appendedMembership;
    /** The highest slot where this leader appended a membership change (0 if none). */
    private long lastMembershipChangeSlot;
    /** The membership changes this leader appended (or re-proposed) by slot; those at or below the commit point are dropped lazily. */
    private final TreeMap<Long, GroupMembership> changesInFlight = new TreeMap<>();

    LeaderConfigurations(ReplicaContext ctx, Acceptor acceptor, Learner learner) {
        this.ctx = ctx;
        this.acceptor = acceptor;
        this.learner = learner;
    }

    /** Leadership begins: this leader has appended no change yet. */
    void start() {
        lastChangeSlot = 0;
        lastMembershipChangeSlot = 0;
        changesInFlight.clear();
        recompute();
    }

    /** The coding after the applied slot (the applied coding) changed by the change entries committed since. */
    void recompute() {
        committedCoding = ctx.coding;
        committedMembership = ctx.membership;
        appendedMembership = ctx.membership;
        for (Entry entry : acceptor.entriesFrom(learner.appliedSlot() + 1)) {
            if (GroupMembership.isChange(entry.command())) {
                appendedMembership = GroupMembership.of(entry.command());
            }
            if (entry.slot() > learner.commitSlot()) {
                continue;
            }
            if (Coding.isChange(entry.command())) {
                committedCoding = committedCoding.after(entry.command());
            }
            if (GroupMembership.isChange(entry.command())) {
                committedMembership = GroupMembership.of(entry.command());
            }
        }
    }

    /** The next slot committed {@code command}: a change in it is in effect from the slot after (M1). */
    void committed(Command command) {
        if (Coding.isChange(command)) {
            committedCoding = committedCoding.after(command);
        }
        if (GroupMembership.isChange(command)) {
            committedMembership = GroupMembership.of(command);
        }
    }

    /** This leader appended the coding change at {@code slot}. */
    void codingChangeAppended(long slot) {
        lastChangeSlot = slot;
    }

    /** This leader appended (or re-proposed) {@code entry}: a membership change in it is in flight until it commits (rule M5). */
    void appended(Entry entry) {
        if (GroupMembership.isChange(entry.command())) {
            lastMembershipChangeSlot = entry.slot();
            appendedMembership = GroupMembership.of(entry.command());
            changesInFlight.put(entry.slot(), appendedMembership);
        }
    }

    /** The coding in effect at the next slot to commit. */
    Coding committedCoding() {
        return committedCoding;
    }

    /** The membership in effect at the next slot to commit (the base of the next change, rule M5). */
    GroupMembership committedMembership() {
        return committedMembership;
    }

    /** The newest membership in this leader's log, chosen or not. */
    GroupMembership appendedMembership() {
        return appendedMembership;
    }

    /** The memberships the changes in this leader's log past its commit point set, in slot order (rule M1). */
    Collection<GroupMembership> membershipsInFlight() {
        changesInFlight.headMap(learner.commitSlot(), true).clear();
        return changesInFlight.values();
    }

    /** Whether a membership change this leader appended is not committed yet (rule M5). */
    boolean membershipChangeInFlight() {
        return lastMembershipChangeSlot > learner.commitSlot();
    }

    /** Whether a coding or membership change this leader appended is not committed yet. */
    boolean changeInFlight() {
        return lastChangeSlot > learner.commitSlot() || membershipChangeInFlight();
    }

    /**
     * The replicas this leader sends the log to: the members (voters and learners) of the membership at its commit
     * point and of every one a change in its log past that point sets (a quorum-lease holder of any of them may have
     * to accept a slot, rule QL4). A removed replica or a spare hears nothing more from it.
     */
    long reach() {
        long members = committedMembership.members() | appendedMembership.members();
        for (GroupMembership m : membershipsInFlight()) {
            members |= m.members();
        }
        return members;
    }
}
