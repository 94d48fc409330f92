package io.synod.leases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.ClockReading;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Role;
import io.synod.protocol.KvCommand;
import org.junit.jupiter.api.Test;

/**
 * The quorum-lease rules (Moraru et al., SoCC 2014, §3, §3.5, §3.8) one at a time, on a fake replica
 * view: node 1 of 3, every replica holding every key ({@link KeyAssignment#ALL}) unless a test says
 * otherwise. Times are local monotonic nanoseconds.
 */
class QuorumLeaseRulesTest {
    private static final long LEASE = 1_000;
    private static final long GUARD = 300;
    private static final long RENEW = 800;
    private static final long GRACE = 1_000;
    /** ε = 10 %: a holder trusts a promise for 900, a grantor is bound for 1100. */
    private static final long EPS_PPM = 100_000;
    private static final Ballot LEADER = new Ballot(1, 0);

    private final LeaderLeaseRulesTest.FakeView view = new LeaderLeaseRulesTest.FakeView();

    private QuorumLease lease(QuorumLeaseConfig config) {
        QuorumLease lease = new QuorumLease(config, KeyExtractor.KV);
        lease.attach(view);
        return lease;
    }

    private static QuorumLeaseConfig all() {
        return QuorumLeaseConfig.quorum(LEASE, GUARD, RENEW, GRACE, EPS_PPM).withAssignment(KeyAssignment.ALL);
    }

    private void clock(QuorumLease lease, long local) {
        view.clock = new ClockReading(local, local, local, true);
        lease.onClock(view.clock);
    }

    private static Command read(String key) {
        return new Command(8, 1, new KvCommand.ReadList(key).encode());
    }

    private static Command append(String key, long value) {
        return new Command(7, value, new KvCommand.Append(key, value).encode());
    }

    private Message.Lease lastSent(Message.Lease.Kind kind, int to) {
        for (int i = view.sent.size() - 1; i >= 0; i--) {
            Message.Lease m = view.sent.get(i);
            if (m.kind() == kind && m.to() == to) {
                return m;
            }
        }
        throw new AssertionError("no " + kind + " to " + to + " in " + view.sent);
    }

    /** Node 1 heard the leader (node 0) and sends its guards at local time {@code at}. */
    private void heardLeaderAndGuard(QuorumLease lease, long at) {
        clock(lease, at);
        lease.onMessage(new Message.Heartbeat(0, 1, LEADER, 0));
        view.sent.clear();
        clock(lease, at + RENEW); // the next guard round carries "heard from the leader"
    }

    private void promise(QuorumLease lease, int grantor, long slot) {
        Message.Lease guard = lastSent(Message.Lease.Kind.GUARD, grantor);
        assertEquals(1, guard.holders(), "the guard says the holder heard from its leader");
        lease.onMessage(new Message.Lease(grantor, 1, LEADER, Message.Lease.Kind.PROMISE, guard.seq(), 0, slot, 0));
    }

    @Test
    void aHolderReadsWhileItHoldsFloorHalfPromisesAndTrustsThemForLeaseTimesOneMinusEpsilon() {
        QuorumLease lease = lease(all());
        heardLeaderAndGuard(lease, 0); // guards sent at local 800
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "no promise yet");
        clock(lease, 850);
        promise(lease, 0, 0);
        assertTrue(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "1 = ⌊3/2⌋ promise, nothing to apply");
        clock(lease, 800 + 898);
        assertTrue(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0));
        clock(lease, 800 + 899); // t_lease(1-ε) = 900, less the 1 ns the margin is rounded up by
        // (the guard round at 1600 is in flight; its promise has not come back)
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "t_lease(1-ε) after the guard left, it is over");
    }

    @Test
    void aPromiseArrivingLaterThanGuardAfterItsGuardDoesNotCount() {
        QuorumLease lease = lease(all());
        heardLeaderAndGuard(lease, 0);
        clock(lease, 800 + GUARD + 1);
        promise(lease, 2, 0);
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0));
    }

    @Test
    void aHolderFirstAppliesUpToTheSlotItsPromiseReportsAndNeverReadsAKeyWithAnUnappliedWrite() {
        QuorumLease lease = lease(all());
        heardLeaderAndGuard(lease, 0);
        promise(lease, 0, 5);
        view.applied = 4;
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "the grantor had accepted slot 5");
        view.applied = 5;
        assertTrue(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0));
        view.log.put(6L, new Entry(6, LEADER, append("k", 1)));
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "slot 6 writes k and is not applied");
        assertTrue(lease.mayServeLocalRead(Role.FOLLOWER, read("other"), 0), "other keys are not affected");
        QuorumLease control = lease(all().withChecks(false, true));
        heardLeaderAndGuard(control, 2_000);
        promise(control, 0, 5);
        assertTrue(control.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "the negative control ignores slot 6");
    }

    @Test
    void aHolderBehindThePromisedSlotMayReadIfItHoldsCurrentBallotEntriesThroughItNoneWritingTheKey() {
        QuorumLease lease = lease(all());
        heardLeaderAndGuard(lease, 0);
        promise(lease, 0, 5); // granted in the leader's ballot, the grantor had accepted through slot 5
        view.applied = 3;
        view.log.put(4L, new Entry(4, LEADER, append("other", 1)));
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "slot 5 is neither applied nor held");
        view.log.put(5L, new Entry(5, new Ballot(0, 2), append("other", 2)));
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0),
                "slot 5 holds an older ballot's entry: the chosen value may differ (and write k)");
        view.log.put(5L, new Entry(5, LEADER, append("other", 2)));
        assertTrue(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "slots 4 and 5 held in the promise's ballot, not writing k");
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("other"), 0), "rule 4d: they write 'other'");
        QuorumLease control = lease(all().withoutPromisedSlotCheck());
        heardLeaderAndGuard(control, 2_000);
        promise(control, 0, 9);
        assertTrue(control.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "the negative control ignores the promised slot 9");
    }

    @Test
    void onlyHoldersOfTheKeyReadIt() {
        KeyAssignment onlyNodeTwo = (key, n) -> 1L << 2;
        QuorumLease lease = lease(all().withAssignment(onlyNodeTwo));
        heardLeaderAndGuard(lease, 0);
        promise(lease, 0, 0);
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0));
    }

    @Test
    void aGrantorIsBoundForLeaseTimesOnePlusEpsilonAfterAGuardAndAfterItStarts() {
        QuorumLease lease = lease(all());
        clock(lease, 0);
        view.log.put(3L, new Entry(3, LEADER, append("k", 1)));
        view.commit = 2;
        // Right after start it is bound to everyone (its previous incarnation may have granted).
        lease.onMessage(new Message.Accept(0, 1, LEADER, java.util.List.of(view.log.get(3L)), 2));
        assertEquals(0b101, lastSent(Message.Lease.Kind.BOUND, 0).holders());
        clock(lease, 1_101);
        lease.onMessage(new Message.Accept(0, 1, LEADER, java.util.List.of(view.log.get(3L)), 2));
        assertEquals(0, lastSent(Message.Lease.Kind.BOUND, 0).holders(), "start binding over, no guard since");
        // Node 2 asks (it heard the leader): bound to it for 1100.
        lease.onMessage(new Message.Lease(2, 1, LEADER, Message.Lease.Kind.GUARD, 9, 0, 0, 1));
        Message.Lease promise = lastSent(Message.Lease.Kind.PROMISE, 2);
        assertEquals(9, promise.seq());
        assertEquals(3, promise.slotHigh(), "the promise reports the highest accepted slot");
        lease.onMessage(new Message.Accept(0, 1, LEADER, java.util.List.of(view.log.get(3L)), 2));
        assertEquals(1L << 2, lastSent(Message.Lease.Kind.BOUND, 0).holders());
        clock(lease, 1_101 + 1_101); // t_lease(1+ε) rounded up by 1 ns
        lease.onMessage(new Message.Accept(0, 1, LEADER, java.util.List.of(view.log.get(3L)), 2));
        assertEquals(0, lastSent(Message.Lease.Kind.BOUND, 0).holders());
        // A holder that has not heard from the leader within the grace period is not granted.
        view.sent.clear();
        lease.onMessage(new Message.Lease(2, 1, LEADER, Message.Lease.Kind.GUARD, 10, 0, 0, 0));
        assertTrue(view.sent.stream().noneMatch(m -> m.kind() == Message.Lease.Kind.PROMISE));
    }

    @Test
    void theLeaderWaitsForEveryReportAndForEveryHolderAnAcceptorIsBoundTo() {
        QuorumLease lease = lease(all());
        view.role = Role.LEADER;
        view.own = new Ballot(2, 1);
        clock(lease, 5_000); // start binding (5000..6100) in force: the leader is bound to every holder
        Entry write = new Entry(7, view.own, append("k", 1));
        view.log.put(7L, write);
        view.commit = 6;
        view.applied = 6;
        clock(lease, 7_000); // start binding over
        lease.onAcknowledged(0, new long[] {7});
        assertFalse(lease.mayCommit(write, 0), "node 0 acknowledged slot 7 but has not said whom it is bound to");
        lease.onMessage(new Message.Lease(0, 1, view.own, Message.Lease.Kind.BOUND, 100, 7, 7, 1L << 2));
        assertTrue(lease.mayCommit(write, 0));
        assertEquals(1L << 2, lease.requiredAcceptors(write), "node 0 is bound to holder 2: wait for it");
        lease.onMessage(new Message.Lease(0, 1, view.own, Message.Lease.Kind.BOUND, 99, 7, 7, 0));
        assertEquals(1L << 2, lease.requiredAcceptors(write), "an older report does not replace a newer one");
        lease.onMessage(new Message.Lease(0, 1, view.own, Message.Lease.Kind.BOUND, 101, 7, 7, 0));
        assertEquals(0, lease.requiredAcceptors(write), "node 0's binding lapsed: holder 2's promises from it are over");
        assertEquals(0, lease.requiredAcceptors(new Entry(8, view.own, Command.NOOP)), "a no-op writes no key");
        QuorumLease control = lease(all().withChecks(true, false));
        assertEquals(0, control.requiredAcceptors(write), "the negative control never waits for holders");
    }

    @Test
    void theHashedAssignmentGivesEveryKeyAMajorityAndUnknownKeysToEveryone() {
        for (int n = 1; n <= 7; n++) {
            for (String key : new String[] {"a", "k1", "k2", "zzz"}) {
                assertEquals(n / 2 + 1, Long.bitCount(KeyAssignment.HASHED_MAJORITY.holders(key, n)));
            }
            assertEquals(n, Long.bitCount(KeyAssignment.HASHED_MAJORITY.holders(null, n)));
        }
    }

    @Test
    void settingsThatCannotRenewInTimeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> QuorumLeaseConfig.quorum(LEASE, GUARD, 950, GRACE, EPS_PPM));
        assertThrows(IllegalArgumentException.class, () -> QuorumLeaseConfig.quorum(0, GUARD, RENEW, GRACE, EPS_PPM));
    }
}
