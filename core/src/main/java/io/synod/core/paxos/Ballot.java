package io.synod.core.paxos;

/**
 * A Paxos ballot. The epoch comes from outside (the ZooKeeper epoch counter, or the simulator's
 * oracle); the node id breaks ties, so two nodes that were handed the same epoch by a faulty or
 * hostile oracle still use distinct, totally ordered ballots. Safety rests on this ordering and
 * on acceptors persisting the highest ballot they promised, never on the oracle.
 */
public record Ballot(long epoch, int nodeId) implements Comparable<Ballot> {

    /** Below every real ballot: what a fresh acceptor has promised. */
    public static final Ballot ZERO = new Ballot(0, -1);

    public Ballot {
        if (epoch < 0) {
            throw new IllegalArgumentException("ballot epoch must be >= 0, got " + epoch);
        }
        if (nodeId < -1) {
            throw new IllegalArgumentException("ballot node id must be >= -1, got " + nodeId);
        }
    }

    @Override
    public int compareTo(Ballot other) {
        int byEpoch = Long.compare(epoch, other.epoch);
        return byEpoch != 0 ? byEpoch : Integer.compare(nodeId, other.nodeId);
    }

    public boolean isAbove(Ballot other) {
        return compareTo(other) > 0;
    }

    public boolean isBelow(Ballot other) {
        return compareTo(other) < 0;
    }

    @Override
    public String toString() {
        return epoch + "." + nodeId;
    }
}
