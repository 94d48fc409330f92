package io.synod.server.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.core.kv.KvStateMachine;
import io.synod.core.kv.ReservedKeys;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.StateMachine.SessionWrite;
import io.synod.leases.LeaseConfiguration;
import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.SessionCommand;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quorum-lease configuration agreed through the log (docs/leases.md, rules C1 and C2) in the RocksDB
 * state machine: a configuration entry applies as core's key-value machine applies it, and the read the
 * policy makes through {@code LeaseView.readState} (a versioned get of {@link LeaseConfiguration#KEY})
 * answers the same bytes, version = slot, after more writes, after a restart, and after a checkpoint
 * or a whole snapshot is installed on another replica. Clients cannot change the key.
 */
class RocksLeaseConfigurationTest {
    @TempDir
    Path dir;

    private static final byte[] READ = new KvCommand.GetVersioned(LeaseConfiguration.KEY).encode();

    /** Applies a configuration entry at {@code slot} to both machines, as the replica applies the leader's. */
    private static void applyConfiguration(long slot, LeaseConfiguration c, KvStateMachine reference, RocksKvStateMachine rocks) {
        Command entry = c.command(slot);
        assertTrue(LeaseConfiguration.isConfigurationCommand(entry));
        byte[] expected = reference.apply(slot, entry.payload());
        assertArrayEquals(expected, rocks.apply(slot, entry.payload(), new SessionWrite(entry.clientId(), entry.sequence(), 0)));
    }

    private static void assertSameConfiguration(KvStateMachine reference, RocksKvStateMachine rocks, long version) {
        assertTrue(rocks.isReadOnly(READ), "the policy's read is read-only");
        assertArrayEquals(reference.read(READ), rocks.read(READ));
        KvResult.Versioned answer = (KvResult.Versioned) KvResult.decode(rocks.read(READ));
        assertEquals(version, answer.version(), "the configuration's version is the slot it applied at");
    }

    @Test
    void aConfigurationEntryReadsBackLikeCoresAfterWritesRestartCheckpointAndSnapshot() throws Exception {
        KvStateMachine reference = new KvStateMachine();
        LeaseConfiguration first = LeaseConfiguration.of(0b001, new long[] {LeaseConfiguration.keyHash("a"),
                LeaseConfiguration.keyHash("b")}, new long[] {0b011, 0b101});
        LeaseConfiguration second = LeaseConfiguration.of(0b010, new long[] {LeaseConfiguration.keyHash("c")}, new long[] {0b110});
        try (RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"))) {
            assertSameConfiguration(reference, a, 0); // nothing stored: the static assignment, version 0
            long slot = 1;
            for (; slot <= 4; slot++) {
                byte[] put = new KvCommand.Put("k" + slot, new byte[] {(byte) slot}).encode();
                assertArrayEquals(reference.apply(slot, put), a.apply(slot, put));
            }
            applyConfiguration(5, first, reference, a);
            assertSameConfiguration(reference, a, 5);
            for (slot = 6; slot <= 8; slot++) {
                byte[] append = new KvCommand.Append("a", slot).encode();
                assertArrayEquals(reference.apply(slot, append), a.apply(slot, append));
            }
            applyConfiguration(9, second, reference, a);
            assertSameConfiguration(reference, a, 9);
            a.commitApplied();
        }
        // A restart reads it back from RocksDB.
        try (RocksKvStateMachine a = new RocksKvStateMachine(dir.resolve("a"));
                RocksKvStateMachine b = new RocksKvStateMachine(dir.resolve("b"));
                RocksKvStateMachine c = new RocksKvStateMachine(dir.resolve("c"))) {
            assertEquals(9, a.durableAppliedSlot());
            assertSameConfiguration(reference, a, 9);
            // A checkpoint installed on a replica that had none (and a stale key) carries it.
            b.apply(1, new KvCommand.Put("stale", new byte[] {1}).encode());
            b.commitApplied();
            CheckpointSource taken = (CheckpointSource) a.snapshotSource(9);
            b.restore(9, RocksKvStateMachineTest.stream(taken, b.snapshotSink(9), 500), a.durableSessions());
            assertSameConfiguration(reference, b, 9);
            // So does a whole snapshot.
            c.restore(a.snapshot());
            assertSameConfiguration(reference, c, 9);
        }
        try (RocksKvStateMachine b = new RocksKvStateMachine(dir.resolve("b"))) {
            assertSameConfiguration(reference, b, 9); // the swapped-in checkpoint is what opens next time
        }
    }

    @Test
    void clientsCannotChangeTheReservedKeyAndTheRefusalNamesIt() throws Exception {
        assertTrue(ReservedKeys.isReserved(LeaseConfiguration.KEY), "the lease configuration key is reserved");
        try (RocksKvStateMachine rocks = new RocksKvStateMachine(dir.resolve("v"))) {
            for (byte[] change : List.of(new KvCommand.Put(LeaseConfiguration.KEY, new byte[] {1}).encode(),
                    new KvCommand.Delete(LeaseConfiguration.KEY).encode(), new KvCommand.Append(LeaseConfiguration.KEY, 1).encode(),
                    new KvCommand.CasVersion(LeaseConfiguration.KEY, 0, new byte[] {1}).encode(),
                    new SessionCommand.DeleteIf(LeaseConfiguration.KEY, SessionCommand.ANY_TOKEN).encode())) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> rocks.validate(change));
                assertTrue(e.getMessage().startsWith("key \"\\0synod/quorum-lease-config\" is reserved"), e.getMessage());
            }
            rocks.validate(READ);
            rocks.validate(new KvCommand.Put("k", new byte[] {1}).encode());
        }
    }
}
