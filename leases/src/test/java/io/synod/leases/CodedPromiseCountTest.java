package io.synod.leases;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.ClockReading;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.LeaseView;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Role;
import io.synod.protocol.KvCommand;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rule QL2 with RS-Paxos coding (docs/membership.md): a holder's promises must make, with itself, a phase 1
 * quorum, because coding 5,1,3 chooses a plain value with F + 1 = 2 acceptances, which the majority {1, 3, 4}
 * misses when they are {0, 2} (the stale read of simulator seed 4340). Node 1 of 5 holds every key.
 */
class CodedPromiseCountTest {
    private static final Ballot BALLOT = new Ballot(1, 0);

    /** Node 1 of 5 with an empty log; {@code readQuorum} is the replica's phase 1 quorum over 5 voters. */
    private static final class FiveView implements LeaseView {
        final int readQuorum;
        final List<Message.Lease> sent = new ArrayList<>();
        ClockReading clock;

        FiveView(int readQuorum) {
            this.readQuorum = readQuorum;
        }

        @Override public int self() { return 1; }
        @Override public int clusterSize() { return 5; }
        @Override public Role role() { return Role.FOLLOWER; }
        @Override public Ballot ownBallot() { return null; }
        @Override public Ballot promised() { return BALLOT; }
        @Override public long commitSlot() { return 27; }
        @Override public long appliedSlot() { return 27; }
        @Override public long lastSlot() { return 27; }
        @Override public long snapshotSlot() { return 0; }
        @Override public Entry entry(long slot) { return null; }
        @Override public ClockReading clock() { return clock; }
        @Override public void send(Message.Lease message) { sent.add(message); }

        @Override
        public int readQuorum(int voters) {
            return readQuorum;
        }
    }

    private final List<QuorumLease.ReadDecision> decisions = new ArrayList<>();

    private QuorumLease holderWithPromisesFrom(FiveView view, int... grantors) {
        QuorumLease lease = new QuorumLease(QuorumLeaseConfig.quorum(1_000, 300, 800, 1_000, 100_000)
                .withAssignment(KeyAssignment.ALL), KeyExtractor.KV, (read, decision, now) -> decisions.add(decision));
        lease.attach(view);
        lease.onMessage(new Message.Heartbeat(0, 1, BALLOT, 27)); // heard its leader: its guards ask to be granted
        view.clock = new ClockReading(10, 10, 10, true);
        lease.onClock(view.clock);
        for (int grantor : grantors) {
            Message.Lease guard = view.sent.stream()
                    .filter(m -> m.kind() == Message.Lease.Kind.GUARD && m.to() == grantor).reduce((a, b) -> b).orElseThrow();
            lease.onMessage(new Message.Lease(grantor, 1, BALLOT, Message.Lease.Kind.PROMISE, guard.seq(), guard.slotLow(),
                    27, 0));
        }
        return lease;
    }

    private QuorumLease.ReadDecision decide(QuorumLease lease) {
        lease.mayServeLocalRead(Role.FOLLOWER, new Command(8, 1, new KvCommand.ReadList("k0").encode()), 10);
        return decisions.get(decisions.size() - 1);
    }

    @Test
    void withMajoritiesTwoPromisesOfFiveVotersServe() {
        QuorumLease lease = holderWithPromisesFrom(new FiveView(3), 3, 4);
        assertEquals(QuorumLease.ReadDecision.SERVED, decide(lease));
    }

    @Test
    void withCoding513TwoPromisesAreTooFewAndThreeServe() {
        assertEquals(QuorumLease.ReadDecision.TOO_FEW_PROMISES, decide(holderWithPromisesFrom(new FiveView(4), 3, 4)),
                "{1, 3, 4} misses the write quorum {0, 2} of a plain value");
        assertEquals(QuorumLease.ReadDecision.SERVED, decide(holderWithPromisesFrom(new FiveView(4), 2, 3, 4)));
    }
}
