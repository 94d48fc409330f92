package io.synod.engine;

import io.synod.core.paxos.GroupMembership;
import io.synod.core.paxos.MembershipChanges;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.Role;
import java.util.function.Consumer;

/**
 * The admin path for membership changes on one group (docs/membership.md, "On the server"): an {@link Request} to add a
 * learner, promote one, remove a member, take the next step of a re-join ({@link Op#CONVERGE}) or only report
 * ({@link Op#STATUS}) is handed to the replica's {@link MembershipChanges}; the answer comes at once, with the change
 * entry's slot or the one-line reason the replica refused it (the rule it names), and the group's membership as this
 * replica sees it. A proposed change is in force once chosen (rule M1); a caller that wants to know waits for a later
 * STATUS to show it. Touched only by the group's driver.
 */
public final class MembershipAdmin {
    /** What is asked. */
    public enum Op { ADD_LEARNER, PROMOTE, REMOVE, CONVERGE, STATUS }

    /**
     * One admin request. {@code replica} names the id for ADD_LEARNER, PROMOTE and REMOVE. For CONVERGE (the request of
     * the node that leads the group, towards the replica map and the placement), {@code replaced} holds the ids whose
     * node runs a newer incarnation (to be removed first), {@code wanted} the current ids of the nodes the group is
     * placed on (to be added, then promoted once caught up), and a member outside {@code wanted} is removed once every
     * wanted id votes (a replica moved away), all bit sets over ids.
     */
    public record Request(Op op, int replica, long replaced, long wanted) {
        public static Request of(Op op, int replica) {
            return new Request(op, replica, 0, 0);
        }

        public static Request converge(long replaced, long wanted) {
            return new Request(Op.CONVERGE, -1, replaced, wanted);
        }
    }

    /**
     * The answer: {@code slot} of the change entry proposed (-1: none), whether it was {@code refused} (a rule, not
     * leading, not serving), {@code message} what was done or why not (one line), and the group as this replica sees it: its role, the leader hint, the applied membership, the membership
     * at the commit point (null unless it leads) and, while it leads, each replica id's reported applied slot
     * ({@code progress[id]}, -1 if unknown) against the commit slot, and the ids it heard from recently (bit set; the
     * live ones of the strict reconfiguration check).
     */
    public record Answer(long slot, boolean refused, String message, Role role, int leaderHint, GroupMembership applied,
            GroupMembership committed, long commitSlot, long[] progress, long heardRecently) {
        /** An answer given without asking the replica (the runner's queue was full, the group failed). */
        public static Answer refused(String message) {
            return new Answer(-1, true, message, null, -1, null, null, -1, new long[0], 0);
        }

        /** Whether the request was carried out with nothing to change (a CONVERGE that found the membership done). */
        public boolean settled() {
            return slot < 0 && !refused;
        }

        /** Whether a change entry was proposed. */
        public boolean proposed() {
            return slot >= 0;
        }
    }

    private final int group;

    MembershipAdmin(int group) {
        this.group = group;
    }

    /** Handles {@code request} against {@code replica} (only when {@code serving}) and answers at once. */
    void handle(Request request, Consumer<Answer> answer, Replica replica, boolean serving) {
        long slot = -1;
        boolean refused = false;
        String message;
        String step = "";
        try {
            if (!serving) {
                refused = true;
                message = "group " + group + " is not serving (repairing or failed)";
            } else {
                MembershipChanges changes = replica.membership();
                switch (request.op()) {
                    case ADD_LEARNER -> slot = changes.addLearner(request.replica());
                    case PROMOTE -> slot = promote(changes, request.replica());
                    case REMOVE -> slot = remove(changes, request.replica());
                    case CONVERGE -> {
                        Step next = converge(request, changes);
                        slot = next.slot();
                        step = next.what();
                    }
                    case STATUS -> { }
                }
                message = slot >= 0 ? "group " + group + ": change proposed at slot " + slot + step
                        : request.op() == Op.STATUS ? "group " + group + ": status"
                        : "group " + group + ": nothing to do, the membership already holds the re-joined replicas";
            }
        } catch (IllegalArgumentException | IllegalStateException e) { // MembershipChanges.Refused is an IllegalStateException
            refused = true;
            message = "group " + group + ": " + e.getMessage();
        }
        answer.accept(view(replica, slot, refused, message));
    }

    /**
     * The next single step towards the membership in which every {@code replaced} id is gone, every {@code wanted}
     * id votes and no other id is a member (rule M4, one step; M5, one at a time, checked by the replica): remove a
     * replaced member first (its acceptor state is gone with its disk, so it only weakens the quorum), then add a
     * wanted id as a learner, then promote a wanted learner (M6: refused until it caught up), then remove a member
     * that is not wanted (a replica moved to another node). Where the removal of a replaced id is refused (a coded
     * group whose F needs every voter it has, rule M8) the new id is added and promoted first and the old one removed
     * after. Its slot is -1 when there is nothing to do.
     * Derived from the committed membership each time, so repeating it is safe.
     */
    private static Step converge(Request request, MembershipChanges changes) {
        GroupMembership m = changes.committed();
        MembershipChanges.Refused removal = null;
        for (int id = 0; id < m.universe() && removal == null; id++) {
            if ((request.replaced() & (1L << id)) != 0 && m.isMember(id)) {
                try {
                    return new Step(remove(changes, id), " (re-join: remove " + id + " from " + m + ")");
                } catch (MembershipChanges.Refused e) {
                    removal = e; // e.g. a coded group at 2F + 1 voters (rule M8): add and promote first, then remove
                }
            }
        }
        for (int id = 0; id < m.universe(); id++) {
            if ((request.wanted() & (1L << id)) != 0 && !m.isMember(id) && !m.isRetired(id)) {
                return new Step(changes.addLearner(id), " (re-join: add learner " + id + " to " + m + ")");
            }
        }
        for (int id = 0; id < m.universe(); id++) {
            if ((request.wanted() & (1L << id)) != 0 && m.isLearner(id)) {
                return new Step(promote(changes, id), " (re-join: promote " + id + " in " + m + ")");
            }
        }
        // Every wanted id that can vote does (a retired one never will, M7): a member placed elsewhere leaves last,
        // so a moved replica's group keeps its voters until the new one votes.
        for (int id = 0; id < m.universe(); id++) {
            if ((request.wanted() & (1L << id)) == 0 && m.isMember(id)) {
                return new Step(remove(changes, id), " (placement: remove " + id + " from " + m + ")");
            }
        }
        if (removal != null) {
            throw removal;
        }
        return new Step(-1, "");
    }

    private static long remove(MembershipChanges changes, int id) {
        strictCheck(changes, changes.committed().without(id), "removing " + id);
        return changes.remove(id);
    }

    private static long promote(MembershipChanges changes, int id) {
        strictCheck(changes, changes.committed().promoted(id), "promoting " + id);
        return changes.promote(id);
    }

    /**
     * etcd's {@code --strict-reconfig-check} on the admin path (docs/membership.md, "Removing a node"): a change that
     * shrinks or grows the voters is refused when the voters the leader heard from recently (an answer to its ballot
     * within the CheckQuorum window, itself included) would be short of a majority of the new membership, so an
     * operator's step never leaves the group unable to commit for want of live voters.
     */
    private static void strictCheck(MembershipChanges changes, GroupMembership next, String what) {
        long live = changes.heardRecently() & next.voters();
        int majority = next.voterCount() / 2 + 1;
        if (Long.bitCount(live) < majority) {
            throw new IllegalStateException("strict reconfiguration check: " + what + " leaves " + Long.bitCount(live)
                    + " live voter(s) " + ids(live) + " of the " + next.voterCount() + " in " + next + ", short of a "
                    + "majority of " + majority);
        }
    }

    private static String ids(long mask) {
        StringBuilder out = new StringBuilder("{");
        for (long rest = mask; rest != 0; rest &= rest - 1) {
            out.append(out.length() == 1 ? "" : ",").append(Long.numberOfTrailingZeros(rest));
        }
        return out.append('}').toString();
    }

    /** A re-join step: the change entry's slot (-1: nothing to do) and what it does. */
    private record Step(long slot, String what) {}

    private static Answer view(Replica replica, long slot, boolean refused, String message) {
        MembershipChanges changes = replica.membership();
        GroupMembership applied = changes.applied();
        boolean leads = replica.role() == Role.LEADER;
        long[] progress = new long[applied.universe()];
        for (int id = 0; id < progress.length; id++) {
            progress[id] = leads ? changes.peerAppliedSlot(id) : id == replica.nodeId() ? replica.appliedSlot() : -1;
        }
        return new Answer(slot, refused, message, replica.role(), leads ? replica.nodeId() : replica.leaderHint(), applied,
                leads ? changes.committed() : null, replica.commitSlot(), progress, leads ? changes.heardRecently() : 0);
    }
}
