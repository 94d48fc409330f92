package io.synod.server.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.coordination.LeaseMode;
import io.synod.coordination.LeaseTiming;
import io.synod.core.kv.KvStateMachine;
import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.ClockReading;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.LeaseHooks;
import io.synod.core.paxos.LeaseView;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Role;
import io.synod.leases.KeyAssignment;
import io.synod.leases.LeaseConfiguration;
import io.synod.protocol.KvCommand;
import io.synod.server.config.ServerConfig.QuorumTimers;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ReadGate} hands the policy every hook (a hook it does not override would silently fall back to
 * {@link LeaseHooks}' default: before quorum-auto, {@code leaderProposal}, so no configuration would ever
 * be proposed), and under {@code lease=quorum-auto} the holders a refusal names are those of the
 * configuration in force at the replica, read back from its state machine.
 */
class ReadGateTest {
    @Test
    void theGateOverridesEveryHookOfLeaseHooks() throws Exception {
        List<String> missing = new ArrayList<>();
        for (Method m : LeaseHooks.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            Method own = ReadGate.class.getMethod(m.getName(), m.getParameterTypes());
            if (own.getDeclaringClass() != ReadGate.class) {
                missing.add(m.getName());
            }
        }
        assertTrue(missing.isEmpty(), "ReadGate does not forward " + missing);
    }

    /** A follower's view whose applied state is a core key-value machine. */
    private static final class View implements LeaseView {
        final KvStateMachine state = new KvStateMachine();
        long applied;
        final List<Message.Lease> sent = new ArrayList<>();

        @Override public int self() { return 1; }
        @Override public int clusterSize() { return 3; }
        @Override public Role role() { return Role.FOLLOWER; }
        @Override public Ballot ownBallot() { return null; }
        @Override public Ballot promised() { return new Ballot(1, 0); }
        @Override public long commitSlot() { return applied; }
        @Override public long appliedSlot() { return applied; }
        @Override public long lastSlot() { return applied; }
        @Override public long snapshotSlot() { return 0; }
        @Override public Entry entry(long slot) { return null; }
        @Override public ClockReading clock() { return ClockReading.unbounded(1_000_000_000L); }
        @Override public void send(Message.Lease message) { sent.add(message); }
        @Override public byte[] readState(byte[] payload) { return state.read(payload); }
    }

    @Test
    void underQuorumAutoARefusalNamesTheHoldersOfTheConfigurationInForce() {
        GroupLease lease = GroupLease.of(LeaseMode.QUORUM_AUTO, new LeaseTiming(2000, 0, 10_000), QuorumTimers.DEFAULTS);
        assertTrue(lease.followerReads());
        assertTrue(lease.toString().contains("AutoAssignment"), lease.toString());
        // The key "a": version 0 (static hashed) and the configuration below give it different holders.
        long listed = 0b011;
        long staticHolders = KeyAssignment.HASHED_MAJORITY.holders("a", 3);
        if (staticHolders == listed) {
            listed = 0b110;
        }
        View view = new View();
        view.state.apply(1, new KvCommand.Put("x", new byte[] {1}).encode());
        view.applied = 1;
        ReadGate gate = lease.newHooks();
        gate.attach(view);
        gate.onClock(ClockReading.unbounded(1_000_000_000L));
        byte[] readA = new KvCommand.Get("a").encode();
        assertEquals(staticHolders, gate.holders(readA), "nothing stored: version 0, the static assignment");

        LeaseConfiguration config = LeaseConfiguration.of(0b001, new long[] {LeaseConfiguration.keyHash("a")}, new long[] {listed});
        io.synod.core.paxos.Command entry = config.command(2);
        view.state.apply(2, entry.payload());
        view.applied = 2;
        gate.onApplied(new Entry(2, new Ballot(1, 0), entry));
        gate.onClock(ClockReading.unbounded(1_001_000_000L));
        assertEquals(listed, gate.holders(readA), "the configuration applied at slot 2 names a's holders");
        assertEquals(0b001, gate.holders(new KvCommand.Get("unlisted").encode()), "keys it does not list: the leader");
    }
}
