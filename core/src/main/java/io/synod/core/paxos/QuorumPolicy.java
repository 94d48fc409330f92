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

    /**
     * Promises needed when the codings that may have chosen a slot phase 1 reads tolerate at least
     * {@code fewestFailures} failures (RS-Paxos with coding changes: {@code Q_R = N - min F}); policies
     * without coding ignore it.
     */
    default int phase1Quorum(int clusterSize, int fewestFailures) {
        return phase1Quorum(clusterSize);
    }

    /**
     * Whether {@code entry} is chosen by {@code acceptances} acceptors when the coding in effect at its
     * slot tolerates {@code slotFailures} failures (RS-Paxos: {@code Q_W = F + X}, X from the entry);
     * policies without coding ignore it.
     */
    default boolean isWriteQuorum(Entry entry, int slotFailures, int acceptances, int clusterSize) {
        return isWriteQuorum(entry, acceptances, clusterSize);
    }

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
