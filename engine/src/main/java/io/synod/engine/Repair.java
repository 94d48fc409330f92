package io.synod.engine;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.Role;

/**
 * Repair after mid-log corruption (the log's storage found damage it could not read past). The entries
 * this replica lost were accepted in ballots up to {@code repairAbove}; until they no longer matter the
 * replica neither votes (its Promises are suppressed) nor stands for election. Two ways to know:
 * <ul>
 *   <li>a leader of a <em>higher</em> ballot finished phase 1 without this replica's promise, so by
 *       quorum intersection it learned every chosen value from others and re-proposed it in its ballot;
 *       once this replica has applied up to that leader's commit point as first heard, it holds those
 *       values again;</li>
 *   <li>the leader is the one of {@code repairAbove} itself (it ran phase 1 with this replica's intact
 *       promise before the damage): every slot it could have proposed before the damage is at most its
 *       commit point plus its pipeline window, so once this replica has applied past that (and past every
 *       slot it saw on disk, {@code repairThroughSlot}), it holds the chosen value of each.</li>
 * </ul>
 */
final class Repair {
    private final int group;
    private final DriverLog log;
    private final long repairThroughSlot;
    private final int pipelineWindow;
    private Ballot repairAbove;
    /** While repairing: the applied slot after which every entry this replica may have lost is re-learned. */
    private long repairTarget = -1;

    /** {@code repairAbove}: null if the log is intact. */
    Repair(int group, Ballot repairAbove, long repairThroughSlot, int pipelineWindow, DriverLog log) {
        this.group = group;
        this.log = log;
        this.repairAbove = repairAbove;
        this.repairThroughSlot = repairThroughSlot;
        this.pipelineWindow = pipelineWindow;
    }

    boolean repairing() {
        return repairAbove != null;
    }

    /** A damaged log must not vote in phase 1: whether {@code m} is a Promise to hold back. */
    boolean suppresses(Message m) {
        return repairAbove != null && m instanceof Message.Promise;
    }

    /** A peer message reached the replica: a leader's Heartbeat, Accept or snapshot may set the target. */
    void onPeerMessage(Message m) {
        if (repairAbove == null) {
            return;
        }
        long commit;
        if (m instanceof Message.Heartbeat h) {
            commit = h.leaderCommit();
        } else if (m instanceof Message.Accept a) {
            commit = a.leaderCommit();
        } else if (m instanceof Message.InstallSnapshot s) {
            commit = s.lastIncludedSlot();
        } else {
            return;
        }
        if (repairTarget >= 0 || m.ballot().nodeId() != m.from() || m.ballot().isBelow(repairAbove)) {
            return;
        }
        if (m.ballot().isAbove(repairAbove)) {
            repairTarget = commit;
        } else {
            repairTarget = Math.max(repairThroughSlot, commit + pipelineWindow);
        }
        log.log(DriverLog.Level.WARN, "group " + group + ": repairing; leader " + m.from() + " (ballot " + m.ballot()
                + ") found, voting again once slot " + repairTarget + " is applied");
    }

    /** After a pass: true once (the repair just finished); the driver then lets the log vote and stand again. */
    boolean finishedAfter(Replica replica) {
        if (repairAbove == null || repairTarget < 0 || replica.role() != Role.FOLLOWER
                || replica.appliedSlot() < repairTarget) {
            return false;
        }
        repairAbove = null;
        log.log(DriverLog.Level.WARN, "group " + group + ": repaired from peers up to slot " + replica.appliedSlot()
                + "; voting and standing for election again");
        return true;
    }
}
