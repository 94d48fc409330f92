package io.synod.server.state;

import static io.synod.server.state.DataDirectoryScenario.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.synod.core.kv.KvStateMachine;
import io.synod.core.paxos.AppliedState.ClientSession;
import io.synod.protocol.KvCommand;
import io.synod.protocol.SessionCommand;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group's RocksDB directory written by an earlier layout of the server still opens with the same state: the
 * checked-in {@code rocksdb-fixture/v1} ({@link DataDirectoryScenario}'s history, written by the first RocksDB
 * machine) is opened by today's machine and compared, key by key, with the same machine over the in-memory store fed
 * the same history: every value and version, list, token and owner, live session, client-session record, the
 * sequential counter, the unresolved deferred value (then rebuilt), the coding and the applied slot.
 */
class DataDirectoryCompatibilityTest {
    @TempDir
    Path tmp;

    @Test
    void theCheckedInDirectoryOpensWithTheSameState() throws Exception {
        Path dir = tmp.resolve("rocksdb");
        copyFixture("rocksdb-fixture/v1", dir);
        try (RocksKvStateMachine m = new RocksKvStateMachine(dir, tmp.resolve("snapshots"))) {
            assertHoldsTheHistory(m);
        }
    }

    /** The same checks on a directory today's code writes (and reopens): the checks hold for the code that writes. */
    @Test
    void aDirectoryWrittenTodayHoldsTheSameState() throws Exception {
        Path dir = tmp.resolve("rocksdb");
        try (RocksKvStateMachine m = new RocksKvStateMachine(dir, tmp.resolve("snapshots"))) {
            play(m);
        }
        try (RocksKvStateMachine m = new RocksKvStateMachine(dir, tmp.resolve("snapshots"))) {
            assertHoldsTheHistory(m);
        }
    }

    private static void assertHoldsTheHistory(RocksKvStateMachine m) {
        KvStateMachine reference = new KvStateMachine();
        play(reference);
        assertEquals(LAST_SLOT, m.durableAppliedSlot(), "applied slot");
        assertEquals(LAST_SLOT, m.appliedSlot(), "applied slot");
        assertArrayEquals(CODING, m.durableCoding(), "coding");
        List<ClientSession> sessions = new ArrayList<>(m.durableSessions());
        sessions.sort(Comparator.comparingLong(ClientSession::clientId));
        List<long[]> expected = clientSessions();
        assertEquals(expected.size(), sessions.size(), "client-session records");
        for (int i = 0; i < expected.size(); i++) {
            ClientSession s = sessions.get(i);
            assertArrayEquals(expected.get(i), new long[] {s.clientId(), s.sequence(), s.slot()}, "client session " + i);
            assertNotNull(s.result());
        }
        assertEquals(reference.sessions().sessions(), m.liveSessions(), "live sessions");
        for (byte[] read : reads()) {
            assertArrayEquals(reference.read(read), m.read(read), "read " + show(read));
        }
        assertArrayEquals(new long[] {DEFERRED_SLOT}, reference.unresolvedSlots(), "the reference's unresolved value");
        assertArrayEquals(new long[] {DEFERRED_SLOT}, m.unresolvedSlots(), "unresolved value");
        byte[] payload = deferredPayload();
        reference.resolve(DEFERRED_SLOT, payload);
        m.resolve(DEFERRED_SLOT, payload);
        byte[] rebuilt = new KvCommand.GetVersioned(DEFERRED_KEY).encode();
        assertArrayEquals(reference.read(rebuilt), m.read(rebuilt), "the rebuilt value and its version");
        // The sequence counter of /q/ stands at 3, and the first session still owns its ephemeral key.
        long slot = LAST_SLOT + 1;
        for (byte[] command : List.of(new SessionCommand.Create("/q/n-", bytes("q3"), 0, true).encode(),
                new SessionCommand.Revoke(FIRST_SESSION).encode(), new SessionCommand.GetEntry("/locks/e").encode(),
                new SessionCommand.ListPrefix("/", 100).encode())) {
            assertArrayEquals(reference.apply(slot, command), m.apply(slot, command), "slot " + slot);
            slot++;
        }
    }

    /** Copies a checked-in directory out of the test resources (RocksDB writes into the directory it opens). */
    static void copyFixture(String resource, Path to) throws IOException, URISyntaxException {
        URL url = DataDirectoryCompatibilityTest.class.getClassLoader().getResource(resource);
        assertNotNull(url, "test resource " + resource);
        Path from = Path.of(url.toURI());
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(f.getFileName().toString()));
            }
        }
    }
}
