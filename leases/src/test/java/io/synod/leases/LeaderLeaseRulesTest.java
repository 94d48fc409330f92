package io.synod.leases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.ClockReading;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.LeaseStamp;
import io.synod.core.paxos.LeaseView;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Role;
import io.synod.protocol.KvCommand;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The LeaseGuard rules one at a time, on a hand-built replica view (SIGMOD 2026 §3.1–§3.3, §4). */
class LeaderLeaseRulesTest {
    private static final long DELTA = 1_000;
    private static final Ballot OLD = new Ballot(1, 0);
    private static final Ballot OWN = new Ballot(2, 1);

    /** A replica as the policy sees it, set by the test. */
    static final class FakeView implements LeaseView {
        Role role = Role.FOLLOWER;
        Ballot own;
        long commit;
        long applied;
        final TreeMap<Long, Entry> log = new TreeMap<>();
        ClockReading clock;

        @Override public int self() { return 1; }
        @Override public int clusterSize() { return 3; }
        @Override public Role role() { return role; }
        @Override public Ballot ownBallot() { return own; }
        @Override public Ballot promised() { return own == null ? OLD : own; }
        @Override public long commitSlot() { return commit; }
        @Override public long appliedSlot() { return applied; }
        @Override public long lastSlot() { return log.isEmpty() ? 0 : log.lastKey(); }
        @Override public long snapshotSlot() { return 0; }
        @Override public Entry entry(long slot) { return log.get(slot); }
        @Override public ClockReading clock() { return clock; }
        @Override public void send(Message.Lease message) { sent.add(message); }
        final java.util.List<Message.Lease> sent = new java.util.ArrayList<>();

        void at(long earliest, long latest) {
            clock = new ClockReading(earliest, earliest, latest, true);
        }
    }

    private static Command append(String key, long value) {
        return new Command(7, value, new KvCommand.Append(key, value).encode());
    }

    private static Command read(String key) {
        return new Command(8, 1, new KvCommand.ReadList(key).encode());
    }

    private final FakeView view = new FakeView();

    /** Slot 1 committed and applied (old leader, created at [100, 110]); slot 2 in the limbo region, writing k1. */
    private LeaderLease leaderAfterPhase1(LeaderLeaseConfig config) {
        LeaderLease lease = new LeaderLease(config, KeyExtractor.KV);
        lease.attach(view);
        view.at(100, 110);
        lease.onClock(view.clock);
        Entry committed = new Entry(1, OLD, append("k0", 1), null, new LeaseStamp(OLD, 100, 110));
        lease.onApplied(committed);
        view.log.put(1L, committed.withBallot(OLD));
        view.log.put(2L, new Entry(2, OWN, append("k1", 1), null, new LeaseStamp(OLD, 300, 310)));
        view.commit = 1;
        view.applied = 1;
        view.role = Role.LEADER;
        view.own = OWN;
        view.at(400, 410);
        lease.onLeading(1, 2);
        return lease;
    }

    @Test
    void deferredCommitWaitsUntilEveryEarlierBallotEntryIsOlderThanDelta() {
        LeaderLease lease = leaderAfterPhase1(LeaderLeaseConfig.bounded(DELTA));
        Entry limbo = view.log.get(2L);
        view.at(1_300, 1_309);
        assertFalse(lease.mayCommit(limbo, 0), "the limbo entry was created by [300, 310]: wait until earliest >= 1310");
        view.at(1_310, 1_320);
        assertTrue(lease.mayCommit(limbo, 0));
    }

    @Test
    void theInconsistentBaselineReadsWithoutALeaseAndCommitsAtOnce() {
        LeaderLease lease = leaderAfterPhase1(LeaderLeaseConfig.inconsistent(DELTA));
        view.at(500, 510);
        assertTrue(lease.mayCommit(view.log.get(2L), 0), "no deferred commit");
        view.at(100_000, 100_010);
        assertTrue(lease.mayServeLocalRead(Role.LEADER, read("k1"), 0), "a limbo key, long after any lease: read anyway");
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k1"), 0), "only a node that believes it leads");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new LeaderLeaseConfig(DELTA, LeaderLeaseConfig.Clock.BOUNDED, 0, true, false, false, true),
                "deferred commit with reads that need no lease is a contradiction");
    }

    @Test
    void theWaitNeverExceedsDeltaFromLeading() {
        // A stamp from the future (a clock out of bounds): everything chosen was created before we led at latest 410.
        LeaderLease lease = new LeaderLease(LeaderLeaseConfig.bounded(DELTA), KeyExtractor.KV);
        lease.attach(view);
        view.at(100, 110);
        lease.onClock(view.clock);
        view.log.put(1L, new Entry(1, OWN, append("k0", 1), null, new LeaseStamp(OLD, 50_000, 50_010)));
        view.role = Role.LEADER;
        view.own = OWN;
        view.at(400, 410);
        lease.onLeading(0, 1);
        view.at(1_410, 1_420);
        assertTrue(lease.mayCommit(view.log.get(1L), 0));
    }

    @Test
    void leaderReadsWhileItsNewestCommittedEntryIsYoungerThanDelta() {
        LeaderLease lease = leaderAfterPhase1(LeaderLeaseConfig.bounded(DELTA).withInheritedReads(false, true));
        view.at(2_000, 2_010);
        assertFalse(lease.mayServeLocalRead(Role.LEADER, read("k0"), 0), "newest committed entry is the old leader's");
        Entry own = new Entry(3, OWN, append("k2", 1), null, lease.stamp(3, append("k2", 1)));
        assertEquals(new LeaseStamp(OWN, 2_000, 2_010), own.stamp());
        view.log.put(3L, own);
        view.commit = 3;
        view.applied = 3;
        view.at(2_900, 2_999);
        assertTrue(lease.mayServeLocalRead(Role.LEADER, read("k0"), 0));
        view.at(2_901, 3_000);
        assertFalse(lease.mayServeLocalRead(Role.LEADER, read("k0"), 0), "latest reached earliest + Δ");
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k0"), 0));
    }

    @Test
    void inheritedReadsSkipTheLimboRegionAndEndWithTheInheritedLease() {
        LeaderLease lease = leaderAfterPhase1(LeaderLeaseConfig.bounded(DELTA));
        view.at(500, 510);
        assertTrue(lease.mayServeLocalRead(Role.LEADER, read("k0"), 0), "k0 is not written in the limbo region");
        assertFalse(lease.mayServeLocalRead(Role.LEADER, read("k1"), 0), "k1 is written in slot 2, in limbo");
        view.at(1_095, 1_100);
        assertFalse(lease.mayServeLocalRead(Role.LEADER, read("k0"), 0), "the commit point's entry is Δ old");
    }

    @Test
    void ignoringTheLimboRegionIsTheNegativeControl() {
        LeaderLease lease = leaderAfterPhase1(LeaderLeaseConfig.bounded(DELTA).withInheritedReads(true, false));
        view.at(500, 510);
        assertTrue(lease.mayServeLocalRead(Role.LEADER, read("k1"), 0));
    }

    @Test
    void timerOnlyLeasesUseTheDriftMargin() {
        LeaderLeaseConfig config = LeaderLeaseConfig.timer(DELTA, 100_000); // ε = 10 %
        assertEquals(899, config.readWindowLocalNanos());
        assertEquals(1_102, config.deferLocalNanos());
        LeaderLease lease = new LeaderLease(config, KeyExtractor.KV);
        lease.attach(view);
        view.clock = ClockReading.unbounded(100);
        lease.onClock(view.clock);
        view.role = Role.LEADER;
        view.own = OWN;
        lease.onLeading(0, 0);
        Entry first = new Entry(1, OWN, append("k0", 1), null, lease.stamp(1, append("k0", 1)));
        assertEquals(new LeaseStamp(OWN, 100, 100), first.stamp());
        view.clock = ClockReading.unbounded(1_201);
        assertFalse(lease.mayCommit(first, 0));
        view.clock = ClockReading.unbounded(1_202);
        assertTrue(lease.mayCommit(first, 0));
        view.log.put(1L, first);
        view.commit = 1;
        view.applied = 1;
        view.clock = ClockReading.unbounded(998);
        assertTrue(lease.mayServeLocalRead(Role.LEADER, read("k0"), 0));
        view.clock = ClockReading.unbounded(999);
        assertFalse(lease.mayServeLocalRead(Role.LEADER, read("k0"), 0));
    }

    @Test
    void inheritedReadsNeedABoundedClock() {
        assertThrows(IllegalArgumentException.class,
                () -> LeaderLeaseConfig.timer(DELTA, 0).withInheritedReads(true, true));
    }

    /**
     * Planned hand-over (LeaseGuard §3, the leader that steps down on purpose ends its lease through the
     * log): the old leader stops lease reads once it stamps its end-lease entry, and a successor that finds
     * that entry at its commit point, with nothing of an earlier ballot past it, commits at once.
     */
    @Test
    void anEndLeaseEntryStopsTheOldLeadersReadsAndLetsItsSuccessorCommitAtOnce() {
        LeaderLease old = new LeaderLease(LeaderLeaseConfig.bounded(DELTA), KeyExtractor.KV);
        old.attach(view);
        view.at(100, 110);
        old.onClock(view.clock);
        view.role = Role.LEADER;
        view.own = OLD;
        old.onLeading(0, 0);
        Entry write = new Entry(1, OLD, append("k0", 1), null, old.stamp(1, append("k0", 1)));
        view.log.put(1L, write);
        view.commit = 1;
        view.applied = 1;
        view.at(200, 210);
        assertTrue(old.mayServeLocalRead(Role.LEADER, read("k0"), 0), "its own committed entry is younger than Δ");
        assertEquals(LeaderLease.END_LEASE, old.endLeaseCommand());
        Entry end = new Entry(2, OLD, LeaderLease.END_LEASE, null, old.stamp(2, LeaderLease.END_LEASE));
        view.log.put(2L, end);
        assertFalse(old.mayServeLocalRead(Role.LEADER, read("k0"), 0), "stamped its end-lease entry: no more lease reads");
        assertEquals(null, old.endLeaseCommand(), "one end-lease entry per ballot");
        view.commit = 2;
        view.applied = 2;
        view.at(210, 220);
        assertFalse(old.mayServeLocalRead(Role.LEADER, read("k0"), 0), "not even once the entry committed");
        assertFalse(old.wantsNoop(), "and no idle no-op renews the ended lease");

        // The successor knows slot 2 committed; phase 1 found nothing past it.
        FakeView next = new FakeView();
        next.log.putAll(view.log);
        next.commit = 2;
        next.applied = 2;
        LeaderLease successor = new LeaderLease(LeaderLeaseConfig.bounded(DELTA), KeyExtractor.KV);
        successor.attach(next);
        next.at(230, 240);
        successor.onClock(next.clock);
        successor.onApplied(write);
        successor.onApplied(end);
        next.role = Role.LEADER;
        next.own = OWN;
        successor.onLeading(2, 2);
        Entry first = new Entry(3, OWN, append("k0", 2), null, successor.stamp(3, append("k0", 2)));
        assertTrue(successor.mayCommit(first, 0), "the previous lease ended through the log: no wait for Δ");
        assertEquals(1, successor.handOverShortcuts());

        // Without the end-lease entry at the commit point (the same log one slot earlier) it waits for Δ.
        FakeView plain = new FakeView();
        plain.log.put(1L, write);
        plain.commit = 1;
        plain.applied = 1;
        LeaderLease waiting = new LeaderLease(LeaderLeaseConfig.bounded(DELTA), KeyExtractor.KV);
        waiting.attach(plain);
        plain.at(230, 240);
        waiting.onClock(plain.clock);
        waiting.onApplied(write);
        plain.role = Role.LEADER;
        plain.own = OWN;
        waiting.onLeading(1, 1);
        assertFalse(waiting.mayCommit(first, 0), "slot 1 was created at [100, 110]: wait until earliest >= 1110");
        assertEquals(0, waiting.handOverShortcuts());
    }

    @Test
    void anEndLeaseEntryInTheLimboRegionNeitherShortensTheWaitNorAllowsInheritedReads() {
        view.at(100, 110);
        Entry committed = new Entry(1, OLD, append("k0", 1), null, new LeaseStamp(OLD, 100, 110));
        view.log.put(1L, committed);
        view.log.put(2L, new Entry(2, OLD, LeaderLease.END_LEASE, null, new LeaseStamp(OLD, 150, 160)));
        view.commit = 1;
        view.applied = 1;
        LeaderLease lease = new LeaderLease(LeaderLeaseConfig.bounded(DELTA), KeyExtractor.KV);
        lease.attach(view);
        lease.onClock(view.clock);
        lease.onApplied(committed);
        view.role = Role.LEADER;
        view.own = OWN;
        view.at(400, 410);
        lease.onLeading(1, 2);
        view.at(500, 510);
        assertFalse(lease.mayCommit(view.log.get(2L), 0), "not known chosen: wait as usual");
        assertFalse(lease.mayServeLocalRead(Role.LEADER, read("k0"), 0),
                "a later leader may find the entry committed and skip the wait that inherited reads rely on");
        assertEquals(0, lease.handOverShortcuts());
    }

    @Test
    void keepingReadsAfterTheEndLeaseEntryIsTheNegativeControl() {
        LeaderLease old = new LeaderLease(LeaderLeaseConfig.bounded(DELTA).withEndLeaseStopsReads(false), KeyExtractor.KV);
        old.attach(view);
        view.at(100, 110);
        old.onClock(view.clock);
        view.role = Role.LEADER;
        view.own = OLD;
        old.onLeading(0, 0);
        view.log.put(1L, new Entry(1, OLD, LeaderLease.END_LEASE, null, old.stamp(1, LeaderLease.END_LEASE)));
        view.commit = 1;
        view.applied = 1;
        view.at(200, 210);
        assertTrue(old.mayServeLocalRead(Role.LEADER, read("k0"), 0));
    }

    /** LeaseGuard's Fig. 7 "log lease" baseline: no client command enters the log until the old lease expired. */
    @Test
    void theLogLeaseBaselineTakesNoCommandUntilTheOldLeaseExpired() {
        LeaderLease lease = leaderAfterPhase1(LeaderLeaseConfig.logLease(DELTA));
        view.at(1_300, 1_309);
        assertFalse(lease.mayAcceptProposals(0), "the limbo entry was created by [300, 310]: nothing until earliest >= 1310");
        assertFalse(lease.mayCommit(view.log.get(2L), 0));
        assertFalse(lease.mayServeLocalRead(Role.LEADER, read("k0"), 0), "no inherited reads");
        view.at(1_310, 1_320);
        assertTrue(lease.mayAcceptProposals(0));
        assertTrue(lease.mayCommit(view.log.get(2L), 0));
        LeaderLease full = leaderAfterPhase1(LeaderLeaseConfig.bounded(DELTA));
        view.at(500, 510);
        assertTrue(full.mayAcceptProposals(0), "LeaseGuard accepts and replicates while it waits");
    }
}
