package io.synod.core.paxos;

/**
 * How many acceptors make a quorum. Plain Multi-Paxos uses majorities; RS-Paxos (Mu et al., HPDC
 * 2014, §4) uses a read quorum {@code Q_R = N - F} and, for a value coded into X data shards, a
 * write quorum {@code Q_W(X) = N - Q_R + X}; the per-entry form leaves room for that.
 * Safety needs every phase 1 quorum to intersect every write quorum in enough acceptors to
 * recover the value.
 */
public interface QuorumPolicy {
    /** Promises (including the candidate's own) needed to finish phase 1. */
    int phase1Quorum(int clusterSize);

    /** Whether {@code acceptances} acceptors (including the leader) having accepted {@code entry} choose it. */
    boolean isWriteQuorum(Entry entry, int acceptances, int clusterSize);

    /** Classic majorities: any two intersect, so a chosen value is seen by every later phase 1. */
    QuorumPolicy MAJORITY = new QuorumPolicy() {
        @Override
        public int phase1Quorum(int clusterSize) {
            return clusterSize / 2 + 1;
        }

        @Override
        public boolean isWriteQuorum(Entry entry, int acceptances, int clusterSize) {
            return acceptances >= clusterSize / 2 + 1;
        }

        @Override
        public String toString() {
            return "majority";
        }
    };
}
