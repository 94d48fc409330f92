package io.synod.core.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.KvCommand;
import io.synod.protocol.KvResult;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Per-key versions (the slot of the last write), compare-and-set by version, and bounded scans. */
class KvVersionsAndScanTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static KvResult apply(KvStateMachine sm, long slot, KvCommand c) {
        return KvResult.decode(sm.apply(slot, c.encode()));
    }

    @Test
    void versionIsTheSlotOfTheLastWrite() {
        KvStateMachine sm = new KvStateMachine();
        assertEquals(new KvResult.Versioned(null, 0).version(),
                ((KvResult.Versioned) apply(sm, 1, new KvCommand.GetVersioned("k"))).version());
        apply(sm, 5, new KvCommand.Put("k", b("a")));
        KvResult.Versioned v = (KvResult.Versioned) apply(sm, 6, new KvCommand.GetVersioned("k"));
        assertArrayEquals(b("a"), v.value());
        assertEquals(5, v.version());
        assertFalse(((KvResult.Swapped) apply(sm, 7, new KvCommand.CasVersion("k", 4, b("x")))).swapped());
        assertTrue(((KvResult.Swapped) apply(sm, 8, new KvCommand.CasVersion("k", 5, b("b")))).swapped());
        assertEquals(8, ((KvResult.Versioned) apply(sm, 9, new KvCommand.GetVersioned("k"))).version());
        assertTrue(((KvResult.Swapped) apply(sm, 10, new KvCommand.CompareAndSet("k", b("b"), b("c")))).swapped());
        assertEquals(10, ((KvResult.Versioned) apply(sm, 11, new KvCommand.GetVersioned("k"))).version());
        apply(sm, 12, new KvCommand.Delete("k"));
        KvResult.Versioned gone = (KvResult.Versioned) apply(sm, 13, new KvCommand.GetVersioned("k"));
        assertNull(gone.value());
        assertEquals(0, gone.version());
        assertTrue(((KvResult.Swapped) apply(sm, 14, new KvCommand.CasVersion("k", 0, b("new")))).swapped(),
                "version 0 expects the key to be absent");
        // The simulator's Get keeps its plain Value result.
        assertInstanceOf(KvResult.Value.class, apply(sm, 15, new KvCommand.Get("k")));
    }

    @Test
    void snapshotsCarryVersions() {
        KvStateMachine sm = new KvStateMachine();
        apply(sm, 3, new KvCommand.Put("a", b("1")));
        apply(sm, 4, new KvCommand.Append("l", 9));
        KvStateMachine copy = new KvStateMachine();
        copy.restore(sm.snapshot());
        assertArrayEquals(sm.snapshot(), copy.snapshot());
        assertEquals(3, ((KvResult.Versioned) apply(copy, 5, new KvCommand.GetVersioned("a"))).version());
    }

    @Test
    void scanIsOrderedBoundedAndRanged() {
        KvStateMachine sm = new KvStateMachine();
        long slot = 1;
        for (String k : List.of("b", "a", "c", "ab", "d")) {
            apply(sm, slot++, new KvCommand.Put(k, b("v" + k)));
        }
        apply(sm, slot++, new KvCommand.Append("bb-list", 1));
        KvResult.Entries all = (KvResult.Entries) apply(sm, slot++, new KvCommand.Scan("", "", 100));
        assertEquals(List.of("a", "ab", "b", "c", "d"), all.entries().stream().map(KvResult.Entry::key).toList(),
                "value keys in byte order; list keys are not returned");
        assertFalse(all.more());
        KvResult.Entries page = (KvResult.Entries) apply(sm, slot++, new KvCommand.Scan("ab", "d", 2));
        assertEquals(List.of("ab", "b"), page.entries().stream().map(KvResult.Entry::key).toList());
        assertTrue(page.more());
        assertEquals(4, page.entries().get(0).version(), "entries carry their versions (ab was written in slot 4)");
        KvResult.Entries rest = (KvResult.Entries) apply(sm, slot++, new KvCommand.Scan("b\0", "d", 10));
        assertEquals(List.of("c"), rest.entries().stream().map(KvResult.Entry::key).toList());
        assertFalse(rest.more());
    }

    @Test
    void scanReplyIsBoundedInBytesButAlwaysProgresses() {
        KvStateMachine sm = new KvStateMachine();
        byte[] big = new byte[KvCommand.MAX_SCAN_REPLY_BYTES / 2 + 1];
        for (int i = 0; i < 4; i++) {
            apply(sm, i + 1, new KvCommand.Put("k" + i, big));
        }
        KvResult.Entries page = (KvResult.Entries) apply(sm, 9, new KvCommand.Scan("", "", 100));
        assertEquals(1, page.entries().size());
        assertTrue(page.more());
    }

    @Test
    void newCommandsAndResultsRoundTripAndRejectBadBytes() {
        for (KvCommand c : List.of(new KvCommand.GetVersioned("k"), new KvCommand.CasVersion("k", 7, b("v")),
                new KvCommand.Scan("", "z", 10), new KvCommand.Scan("a", "", KvCommand.MAX_SCAN_LIMIT))) {
            assertEquals(c.toString().replaceAll("@[0-9a-f]+", ""),
                    KvCommand.decode(c.encode()).toString().replaceAll("@[0-9a-f]+", ""));
        }
        assertThrows(IllegalArgumentException.class, () -> new KvCommand.Scan("", "", 0));
        byte[] scan = new KvCommand.Scan("a", "b", 5).encode();
        scan[scan.length - 1] = 0; // limit 0
        assertThrows(IllegalArgumentException.class, () -> KvCommand.decode(scan));
        assertThrows(IllegalArgumentException.class, () -> KvCommand.decode(new byte[] {KvCommand.TAG_GET_VERSIONED, 0, 0}),
                "only a scan may have an empty key");
        KvResult.Entries e = new KvResult.Entries(List.of(new KvResult.Entry("k", b("v"), 3)), true);
        KvResult.Entries back = (KvResult.Entries) KvResult.decode(e.encode());
        assertEquals("k", back.entries().get(0).key());
        assertEquals(3, back.entries().get(0).version());
        assertTrue(back.more());
        byte[] lying = e.encode();
        lying[5] = 0x7f; // entry count far beyond the bytes present
        assertThrows(IllegalArgumentException.class, () -> KvResult.decode(lying));
        KvResult.Versioned absent = (KvResult.Versioned) KvResult.decode(new KvResult.Versioned(null, 0).encode());
        assertNull(absent.value());
    }
}
