package io.synod.leases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.kv.KvStateMachine;
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
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Quorum-lease configurations agreed through the log (Moraru et al., SoCC 2014, §3) and their
 * automatic assignment, on a fake replica (node 1 of 3) whose state is a real {@link KvStateMachine}:
 * the configuration is a put of a reserved key, its version the slot, read back from the state.
 */
class LeaseConfigurationTest {
    private static final long LEASE = 1_000;
    private static final long EPS_PPM = 100_000; // a holder trusts 900, a grantor is bound 1100
    private static final Ballot BALLOT = new Ballot(1, 0);
    private static final Ballot OWN = new Ballot(1, 1);
    private static final AutoAssignment AUTO = new AutoAssignment(500, 4, 8, 16, 1, 1.0, 1);

    /** Node 1 of 3 over a real key-value state machine. */
    static final class StateView implements LeaseView {
        final KvStateMachine state = new KvStateMachine();
        final TreeMap<Long, Entry> log = new TreeMap<>();
        final List<Message.Lease> sent = new ArrayList<>();
        Role role = Role.FOLLOWER;
        Ballot own;
        long commit;
        long applied;
        ClockReading clock;

        @Override public int self() { return 1; }
        @Override public int clusterSize() { return 3; }
        @Override public Role role() { return role; }
        @Override public Ballot ownBallot() { return own; }
        @Override public Ballot promised() { return own == null ? BALLOT : own; }
        @Override public long commitSlot() { return commit; }
        @Override public long appliedSlot() { return applied; }
        @Override public long lastSlot() { return log.isEmpty() ? applied : Math.max(applied, log.lastKey()); }
        @Override public long snapshotSlot() { return 0; }
        @Override public Entry entry(long slot) { return log.get(slot); }
        @Override public ClockReading clock() { return clock; }
        @Override public void send(Message.Lease message) { sent.add(message); }

        @Override
        public byte[] readState(byte[] payload) {
            return state.read(payload);
        }

        /** Commits and applies slot {@code slot} holding {@code command}, telling the policy first, as the replica does. */
        void apply(QuorumLease lease, long slot, Command command) {
            Entry entry = new Entry(slot, BALLOT, command);
            log.put(slot, entry);
            commit = Math.max(commit, slot);
            lease.onApplied(entry);
            if (!command.isNoop()) {
                state.apply(slot, command.payload());
            }
            applied = slot;
        }
    }

    private final StateView view = new StateView();

    private QuorumLease lease(AutoAssignment auto) {
        QuorumLease lease = new QuorumLease(QuorumLeaseConfig.quorum(LEASE, 300, 800, 1_000, EPS_PPM)
                .withAssignment(KeyAssignment.ALL), KeyExtractor.KV, QuorumLease.ReadObserver.NONE, auto);
        lease.attach(view);
        return lease;
    }

    private void clock(QuorumLease lease, long local) {
        view.clock = new ClockReading(local, local, local, true);
        lease.onClock(view.clock);
    }

    private static Command read(String key) {
        return new Command(8, 1, new KvCommand.ReadList(key).encode());
    }

    private static Entry write(long slot, String key) {
        return new Entry(slot, OWN, new Command(7, slot, new KvCommand.Append(key, slot).encode()));
    }

    private static LeaseConfiguration giving(String key, long holders) {
        return LeaseConfiguration.of(1L, new long[] {LeaseConfiguration.keyHash(key)}, new long[] {holders});
    }

    private Message.Lease lastGuardTo(int to) {
        for (int i = view.sent.size() - 1; i >= 0; i--) {
            Message.Lease m = view.sent.get(i);
            if (m.kind() == Message.Lease.Kind.GUARD && m.to() == to) {
                return m;
            }
        }
        throw new AssertionError("no guard to " + to + " in " + view.sent);
    }

    /** Node 1 heard its leader, guards at {@code at}, and gets node {@code grantor}'s promise for the version it asked under. */
    private void promised(QuorumLease lease, long at, int grantor) {
        lease.onMessage(new Message.Heartbeat(0, 1, BALLOT, 0));
        clock(lease, at);
        Message.Lease guard = lastGuardTo(grantor);
        lease.onMessage(new Message.Lease(grantor, 1, BALLOT, Message.Lease.Kind.PROMISE, guard.seq(), guard.slotLow(),
                view.lastSlot(), 0));
    }

    @Test
    void aConfigurationIsAPutOfTheReservedKeyAndItsVersionIsItsSlot() {
        LeaseConfiguration c = LeaseConfiguration.of(1L << 2, new long[] {LeaseConfiguration.keyHash("a"),
                LeaseConfiguration.keyHash("b")}, new long[] {0b011, 0b110});
        KvStateMachine state = new KvStateMachine();
        state.apply(41, c.command(41).payload());
        LeaseConfiguration back = LeaseConfiguration.fromState(state.read(LeaseConfiguration.readCommand()), KeyAssignment.ALL);
        assertEquals(41, back.version());
        assertEquals(0b011, back.holders("a", 3));
        assertEquals(0b110, back.holders("b", 3));
        assertEquals(0b100, back.holders("c", 3), "keys not listed: the default holders");
        assertEquals(0b111, back.holders(null, 3), "a key it cannot name is held by everyone");
        assertTrue(back.sameAssignment(c));
        LeaseConfiguration none = LeaseConfiguration.fromState(new KvStateMachine().read(LeaseConfiguration.readCommand()),
                KeyAssignment.HASHED_MAJORITY);
        assertEquals(0, none.version(), "nothing stored: the static assignment is version 0");
        assertEquals(KeyAssignment.HASHED_MAJORITY.holders("x", 5), none.holders("x", 5));
        // Survives a snapshot: a replica that restores one reads the same configuration and version.
        KvStateMachine restored = new KvStateMachine();
        restored.restore(state.snapshot());
        assertEquals(41, LeaseConfiguration.fromState(restored.read(LeaseConfiguration.readCommand()), KeyAssignment.ALL)
                .version());
        // Bad bytes are refused with the problem named.
        byte[] truncated = new KvCommand.Put(LeaseConfiguration.KEY, new byte[] {0x51, 0x4C, 0x43, 0x46, 0}).encode();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LeaseConfiguration.decodeCommand(truncated));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LeaseConfiguration.of(0, new long[] {5, 5}, new long[] {1, 2}));
        // Any command on the reserved key counts as a configuration change (a client's too); others do not.
        assertTrue(LeaseConfiguration.isConfigurationCommand(c.command(41)));
        assertTrue(LeaseConfiguration.isConfigurationCommand(new Command(7, 1, new KvCommand.Delete(LeaseConfiguration.KEY).encode())));
        assertFalse(LeaseConfiguration.isConfigurationCommand(new Command(7, 1, new KvCommand.Put("k", new byte[3]).encode())));
        assertFalse(LeaseConfiguration.isConfigurationCommand(Command.NOOP));
    }

    @Test
    void aHolderSwitchesWhenTheEntryAppliesAndCountsOnlyPromisesOfItsVersion() {
        QuorumLease lease = lease(AUTO);
        promised(lease, 0, 0);
        assertTrue(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "version 0 (everyone holds every key)");
        assertEquals(0, lastGuardTo(0).slotLow(), "guards name the version they ask under");

        view.log.put(3L, new Entry(3, BALLOT, giving("k", 0b011).command(3)));
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "a configuration entry is pending");

        view.sent.clear();
        view.apply(lease, 3, view.log.get(3L).command());
        clock(lease, 10); // the replica's next input: the policy reads the state back
        assertEquals(3, lease.configuration().version());
        assertEquals(3, lastGuardTo(0).slotLow(), "new guards at once, under version 3");
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "the version-0 promise no longer counts");
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("other"), 0), "not a holder of unlisted keys (leader only)");
        Message.Lease guard = lastGuardTo(0);
        lease.onMessage(new Message.Lease(0, 1, BALLOT, Message.Lease.Kind.PROMISE, guard.seq(), 0, 3, 0));
        assertFalse(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "a promise granted under version 0 does not count");
        lease.onMessage(new Message.Lease(0, 1, BALLOT, Message.Lease.Kind.PROMISE, guard.seq(), 3, 3, 0));
        assertTrue(lease.mayServeLocalRead(Role.FOLLOWER, read("k"), 0), "a version-3 promise does");
    }

    @Test
    void writesWaitForTheOldAndNewHoldersUntilNoReaderOfTheOldVersionCanRemain() {
        QuorumLease lease = lease(AUTO);
        clock(lease, 0); // bound to every holder until t_lease(1+ε) = 1100 (restart rule)
        view.role = Role.LEADER;
        view.own = OWN;
        view.log.put(2L, new Entry(2, BALLOT, giving("k", 0b011).command(2)));
        assertEquals(0b101, lease.requiredAcceptors(write(5, "k")),
                "logged, not committed: the holders of version 0 (everyone) and of the new one, among the bound (all peers)");
        view.apply(lease, 2, view.log.get(2L).command());
        clock(lease, 100); // saw version 2 committed at 100
        view.log.put(5L, write(5, "k"));
        // Nodes 0 and 2 renew their guards: this replica stays bound to both after its restart binding ends.
        clock(lease, 1_000);
        lease.onMessage(new Message.Lease(0, 1, OWN, Message.Lease.Kind.GUARD, 1, 0, 0, 1));
        lease.onMessage(new Message.Lease(2, 1, OWN, Message.Lease.Kind.GUARD, 1, 2, 0, 1));
        clock(lease, 100 + 1_100);
        assertEquals(0b101, lease.requiredAcceptors(write(5, "k")), "until 100 + t_lease(1+ε): the old holders too");
        clock(lease, 100 + 1_101);
        assertEquals(0b001, lease.requiredAcceptors(write(5, "k")), "then only version 2's (nodes 0 and 1; 1 is itself)");

        StateView other = new StateView();
        QuorumLease control = new QuorumLease(QuorumLeaseConfig.quorum(LEASE, 300, 800, 1_000, EPS_PPM)
                .withAssignment(KeyAssignment.ALL), KeyExtractor.KV, QuorumLease.ReadObserver.NONE, AUTO.withoutOldHolders());
        control.attach(other);
        other.clock = new ClockReading(0, 0, 0, true);
        control.onClock(other.clock);
        other.role = Role.LEADER;
        other.own = OWN;
        other.apply(control, 2, giving("k", 0b011).command(2));
        control.onClock(new ClockReading(100, 100, 100, true));
        assertEquals(0b001, control.requiredAcceptors(write(5, "k")), "the negative control forgets the old holders at once");
    }

    @Test
    void afterASnapshotTheReplicaReadsTheConfigurationBackAndTheLeaderAssumesAnyOlderHolder() {
        KvStateMachine donor = new KvStateMachine();
        donor.apply(7, giving("k", 0b010).command(7).payload());
        QuorumLease lease = lease(AUTO);
        clock(lease, 0);
        view.state.restore(donor.snapshot());
        view.applied = 7;
        view.commit = 7;
        lease.onSnapshotInstalled(7);
        assertEquals(7, lease.configuration().version());
        view.role = Role.LEADER;
        view.own = OWN;
        assertEquals(0b101, lease.requiredAcceptors(write(8, "k")), "the version before 7 is unknown: every bound holder");
    }

    @Test
    void theLeaderGivesAHotKeyToItsTopReadersAndStaysQuietWhenIdleOrUnsettled() {
        QuorumLease lease = lease(AUTO);
        clock(lease, 0);
        view.role = Role.LEADER;
        view.own = OWN;
        assertNull(lease.leaderProposal(1), "a new leader first collects a period of reports");
        clock(lease, 400);
        assertNull(lease.leaderProposal(1), "not before a period has passed");
        clock(lease, 1_150);
        for (int i = 0; i < 5; i++) {
            lease.onMessage(new Message.Lease(2, 1, OWN, Message.Lease.Kind.READS, 9, LeaseConfiguration.keyHash("hot"), 1, 9));
        }
        lease.onMessage(new Message.Lease(0, 1, OWN, Message.Lease.Kind.READS, 2, LeaseConfiguration.keyHash("hot"), 1, 2));
        clock(lease, 1_200);
        Command proposal = lease.leaderProposal(1);
        assertNotNull(proposal);
        LeaseConfiguration proposed = LeaseConfiguration.decodeCommand(proposal.payload());
        assertEquals(0b110, proposed.holders("hot", 3), "the leader (1) and the ⌊3/2⌋ = 1 top reader (2)");
        assertEquals(0b010, proposed.holders("cold", 3), "other keys: the leader alone");
        assertEquals(1, proposal.sequence(), "its sequence is its slot: never taken for a retry");

        view.log.put(1L, new Entry(1, OWN, proposal));
        clock(lease, 2_000);
        assertNull(lease.leaderProposal(2), "one change at a time");
        view.apply(lease, 1, proposal);
        clock(lease, 2_001);
        assertNull(lease.leaderProposal(2), "not until t_lease(1+ε) after it saw the change committed");
        clock(lease, 3_000);
        lease.onMessage(new Message.Lease(0, 1, OWN, Message.Lease.Kind.READS, 50, LeaseConfiguration.keyHash("hot"), 2, 50));
        clock(lease, 2_001 + 1_101);
        Command next = lease.leaderProposal(2);
        assertNotNull(next, "node 0 now reads it most");
        assertEquals(0b011, LeaseConfiguration.decodeCommand(next.payload()).holders("hot", 3));
        view.apply(lease, 2, next);
        clock(lease, 10_000);
        clock(lease, 20_000);
        assertNull(lease.leaderProposal(3), "nobody read in the last period: an idle group keeps its configuration");
    }

    @Test
    void theReadCounterKeepsTheMostReadKeysWithinItsCapacity() {
        ReadCounter counter = new ReadCounter(3);
        for (int i = 0; i < 10; i++) {
            counter.count(100);
        }
        for (int i = 0; i < 5; i++) {
            counter.count(200);
        }
        counter.count(300);
        counter.count(400); // replaces 300 (count 1), starts at 2
        assertEquals(3, counter.size());
        long[][] top = counter.top(2);
        assertEquals(100, top[0][0]);
        assertEquals(10, top[0][1]);
        assertEquals(200, top[1][0]);
        counter.decay();
        assertEquals(5, counter.top(1)[0][1]);
        assertThrows(IllegalArgumentException.class, () -> new ReadCounter(0));
    }

    /**
     * Rule QL5 (docs/membership.md): a configuration is read over the membership in force. Version 0 is the static
     * assignment over the voters' ranks (QL1), a listed holder set and the default holders are intersected with the
     * voters; with every id voting both are the configuration as it was.
     */
    @Test
    void holdersAreRecomputedOverTheVoters() {
        LeaseConfiguration initial = LeaseConfiguration.initial(KeyAssignment.HASHED_MAJORITY);
        long everyone = 0b11111;
        long voters = 0b11010; // ids 1, 3, 4 vote: ranks 0, 1, 2
        for (String key : List.of("a", "b", "k0", "k1", "k2", "k3")) {
            assertEquals(initial.holders(key, 5), initial.holdersAmong(key, everyone), key);
            long ranks = KeyAssignment.HASHED_MAJORITY.holders(key, 3);
            long expected = ((ranks & 1) != 0 ? 0b00010 : 0) | ((ranks & 2) != 0 ? 0b01000 : 0) | ((ranks & 4) != 0 ? 0b10000 : 0);
            assertEquals(expected, initial.holdersAmong(key, voters), key);
            assertEquals(2, Long.bitCount(initial.holdersAmong(key, voters)), key + ": a majority of three voters");
        }
        LeaseConfiguration listed = LeaseConfiguration.of(0b00001, new long[] {LeaseConfiguration.keyHash("hot")},
                new long[] {0b00111}).at(7);
        assertEquals(0b00111, listed.holdersAmong("hot", everyone));
        assertEquals(0b00010, listed.holdersAmong("hot", voters), "removed or spare ids hold nothing");
        assertEquals(0b00001, listed.holdersAmong("cold", everyone));
        assertEquals(0, listed.holdersAmong("cold", voters), "a default holder that no longer votes holds nothing");
        assertEquals(voters, listed.holdersAmong(null, voters), "a command naming no key is held by every voter");
    }
}
