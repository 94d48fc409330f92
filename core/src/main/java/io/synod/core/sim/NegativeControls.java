package io.synod.core.sim;

import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.LeaseHooks;
import io.synod.core.paxos.QuorumPolicy;
import io.synod.core.paxos.ReadyLoop;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.Role;

/**
 * Where each {@link Mutation} is planted: the quorum policy, the lease hooks, the disk, or the order
 * of the Ready contract. The simulator asks this class for each of those parts and otherwise knows
 * nothing about mutations.
 */
final class NegativeControls {
    private final Mutation mutation;

    NegativeControls(Mutation mutation) {
        this.mutation = mutation;
    }

    /** {@link Mutation#WRITE_QUORUM_TOO_SMALL}: phase 1 uses majorities, a value commits with one acceptance fewer. */
    QuorumPolicy quorum() {
        if (mutation != Mutation.WRITE_QUORUM_TOO_SMALL) {
            return QuorumPolicy.MAJORITY;
        }
        return new QuorumPolicy() {
            @Override
            public int phase1Quorum(int clusterSize) {
                return clusterSize / 2 + 1;
            }

            @Override
            public boolean isWriteQuorum(Entry entry, int acceptances, int clusterSize) {
                return acceptances >= clusterSize / 2;
            }

            @Override
            public String toString() {
                return "majority-minus-one (mutation)";
            }
        };
    }

    /** {@link Mutation#LOCAL_READS_WITHOUT_LEASE}: every read is answered locally, with no lease. */
    LeaseHooksFactory leases(LeaseHooksFactory requested) {
        if (mutation != Mutation.LOCAL_READS_WITHOUT_LEASE) {
            return requested;
        }
        LeaseHooks localReads = new LeaseHooks() {
            @Override
            public boolean mayServeLocalRead(Role role, Command read, long nowNanos) {
                return true;
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
                return "local-reads-without-lease (mutation)";
            }
        };
        return (node, size) -> localReads;
    }

    /** {@link Mutation#PROMISE_NOT_PERSISTED}: the disk drops promised-ballot writes. */
    boolean diskDropsPromises() {
        return mutation == Mutation.PROMISE_NOT_PERSISTED;
    }

    /**
     * {@link Mutation#SEND_BEFORE_FSYNC}: a Ready's messages and replies leave when its fsync starts
     * instead of when it completes (and not again then).
     */
    ReadyLoop.Sink sink(ReadyLoop.Sink real) {
        if (mutation != Mutation.SEND_BEFORE_FSYNC) {
            return real;
        }
        return new ReadyLoop.Sink() {
            private Ready sentEarly;

            @Override
            public void taken(Ready ready) {
                real.taken(ready);
            }

            @Override
            public boolean persist(Ready ready) {
                real.deliver(ready);
                sentEarly = ready;
                return real.persist(ready);
            }

            @Override
            public void compactThrough(long slot) {
                real.compactThrough(slot);
            }

            @Override
            public void send(io.synod.core.paxos.Message message) {
                real.send(message);
            }

            @Override
            public void reply(io.synod.core.paxos.ClientReply reply) {
                real.reply(reply);
            }

            @Override
            public void resign() {
                real.resign();
            }

            @Override
            public void deliver(Ready ready) {
                if (ready == sentEarly) {
                    sentEarly = null;
                    return;
                }
                real.deliver(ready);
            }
        };
    }
}
