package io.synod.core.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import io.synod.protocol.SessionCommand;
import io.synod.protocol.SessionResult;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The one snapshot format ({@link KvSnapshotFormat}): what each version may hold, bad bytes refused by name, and a
 * snapshot whose session tables contradict each other refused before anything is replaced.
 */
class KvSnapshotFormatTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Snapshot bytes of {@code version} holding {@code pairs} (key, value, key, value, ...). */
    private static byte[] snapshot(int version, byte[]... pairs) {
        TreeMap<byte[], byte[]> map = new TreeMap<>(Arrays::compareUnsigned);
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        byte[] encoded = KvSnapshotFormat.encode(map);
        ByteBuffer.wrap(encoded).putInt(0, version);
        return encoded;
    }

    @Test
    void theEarlierRocksDbVersionsAreReadWithWhatTheyHeld() {
        byte[] value = KvLayout.stored(7, b("x"));
        KvStateMachine m = new KvStateMachine();
        m.restore(snapshot(2, KvLayout.key(KvLayout.VALUE, "k"), value));
        assertArrayEquals(new KvResult.Versioned(b("x"), 7).encode(), m.read(new KvCommand.GetVersioned("k").encode()));
        m.restore(snapshot(3, KvLayout.key(KvLayout.VALUE, "k"), value, KvLayout.prefixed(KvLayout.META_PREFIX, "k"),
                KvLayout.longs(7, 0)));
        assertArrayEquals(new SessionResult.Entry("k", b("x"), 7, 0).encode(), m.read(new SessionCommand.GetEntry("k").encode()));
        IllegalArgumentException sessionsIn2 = assertThrows(IllegalArgumentException.class, () -> m.restore(snapshot(2,
                KvLayout.key(KvLayout.VALUE, "k"), value, KvLayout.prefixed(KvLayout.META_PREFIX, "k"), KvLayout.longs(7, 0))));
        assertTrue(sessionsIn2.getMessage().contains("is not a key a version 2 snapshot holds"), sessionsIn2.getMessage());
        IllegalArgumentException notesIn3 = assertThrows(IllegalArgumentException.class,
                () -> m.restore(snapshot(3, KvLayout.prefixed(KvLayout.NOTE_PREFIX, "l"), new byte[4])));
        assertTrue(notesIn3.getMessage().contains("version 3"), notesIn3.getMessage());
    }

    @Test
    void badBytesAreRefusedByName() {
        KvStateMachine m = new KvStateMachine();
        IllegalArgumentException version = assertThrows(IllegalArgumentException.class, () -> m.restore(snapshot(1)));
        assertEquals("kv snapshot version 1 is not supported (this machine reads 2 to 4)", version.getMessage());
        byte[] good = snapshot(4, KvLayout.key(KvLayout.VALUE, "k"), KvLayout.stored(1, b("v")));
        for (int cut = 1; cut < good.length; cut++) {
            byte[] truncated = Arrays.copyOf(good, cut);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.restore(truncated), "cut at " + cut);
            assertTrue(e.getMessage().startsWith("kv snapshot"), e.getMessage());
        }
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        assertEquals("kv snapshot has 1 trailing bytes", assertThrows(IllegalArgumentException.class, () -> m.restore(trailing)).getMessage());
        IllegalArgumentException clientSessions = assertThrows(IllegalArgumentException.class,
                () -> m.restore(snapshot(4, KvLayout.sessionKey(5), new byte[20])));
        assertTrue(clientSessions.getMessage().contains("is not a key"), "client sessions travel beside the state, not in it");
    }

    @Test
    void contradictorySessionTablesAreRefusedAndReplaceNothing() {
        KvStateMachine m = new KvStateMachine();
        m.apply(1, new KvCommand.Put("kept", b("1")).encode());
        byte[] before = m.snapshot();
        // Key "e" is owned by session 9, which does not exist.
        byte[] orphan = snapshot(4, KvLayout.key(KvLayout.VALUE, "e"), KvLayout.stored(3, b("x")),
                KvLayout.prefixed(KvLayout.META_PREFIX, "e"), KvLayout.longs(3, 9), KvLayout.ownedKey(9, "e"), new byte[0]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.restore(orphan));
        assertEquals("kv snapshot session tables are inconsistent: invariant violated: key e outlives its session 9", e.getMessage());
        assertArrayEquals(before, m.snapshot(), "nothing was replaced");
        // The same key with its session present restores.
        m.restore(snapshot(4, KvLayout.key(KvLayout.VALUE, "e"), KvLayout.stored(3, b("x")),
                KvLayout.prefixed(KvLayout.META_PREFIX, "e"), KvLayout.longs(3, 9), KvLayout.ownedKey(9, "e"), new byte[0],
                KvLayout.leaseKey(9), KvLayout.longs(1000, 9, 1)));
        assertEquals(9, m.sessions().ownerOf("e"));
        m.sessions().checkInvariants();
    }
}
