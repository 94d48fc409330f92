package io.synod.core.paxos;

/**
 * Where lease policies plug into the replica (module {@code leases} implements them: LeaseGuard
 * leader leases, Moraru quorum leases). The replica asks these three questions; the answers must
 * be pure functions of the arguments and of state the policy got from the replica's inputs.
 */
public interface LeaseHooks {
    /**
     * May this replica answer the read-only {@code read} from its local state now, without a log
     * round? Only ever asked of a replica that has applied everything it knows to be committed.
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
