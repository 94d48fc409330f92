package io.synod.server.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.synod.core.paxos.Ballot;
import io.synod.core.paxos.CodedValue;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import io.synod.core.paxos.LeaseStamp;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node log's record bodies: the direct encoding of a plain entry is the byte encoding, and every kind comes back. */
class LogRecordsTest {
    @TempDir
    Path dir;

    @Test
    void aPlainEntryPutIntoTheWriteBufferIsByteForByteItsEncodedBody() {
        SplittableRandom random = new SplittableRandom(7);
        for (int size : new int[] {0, 1, 100, 1024, 8192, 70_000}) {
            byte[] value = new byte[size];
            random.nextBytes(value);
            Entry e = new Entry(1 + random.nextInt(1 << 20), new Ballot(random.nextLong(1L << 40), random.nextInt(63)),
                    new Command(1 + random.nextLong(1L << 40), random.nextLong(1L << 40), value));
            byte[] expected = LogRecords.entryBody(e);
            assertEquals(expected.length, LogRecords.plainBodyLength(e));
            ByteBuffer direct = ByteBuffer.allocateDirect(expected.length + 8);
            direct.put((byte) 0x55); // not at position 0, as in a batch
            LogRecords.putPlainBody(direct, e);
            assertEquals(1 + expected.length, direct.position());
            byte[] got = new byte[expected.length];
            direct.get(1, got);
            assertArrayEquals(expected, got, "size " + size);
        }
    }

    /**
     * A lease stamp is part of the value (LeaseGuard §3: phase 1 re-proposes it unchanged), so it must survive the
     * log: a stamped plain entry, a coded one and a plain one are all read back exactly after a reopen.
     */
    @Test
    void plainStampedAndCodedEntriesComeBackExactlyAfterAReopen() throws Exception {
        Ballot b = new Ballot(3, 1);
        Entry plain = new Entry(1, b, new Command(5, 1, new byte[] {1, 2, 3}));
        Entry stamped = new Entry(2, b, new Command(5, 2, new byte[] {4, 5}), null, new LeaseStamp(b, 1_000, 2_000));
        Entry coded = new Entry(3, b, new Command(5, 3, new byte[0]), new CodedValue(2, 3, 10, 99, new byte[] {7, 7, 7, 7, 7}),
                null);
        try (NodeLog log = NodeLog.open(dir, 1 << 16)) {
            log.syncThrough(log.append(4, List.of(plain, stamped, coded)));
        }
        try (NodeLog log = NodeLog.open(dir, 1 << 16)) {
            LogRecovery rec = log.recovery(4);
            assertEquals(List.of(), rec.corruptions());
            assertEquals(plain, rec.entries().get(1L));
            Entry back = rec.entries().get(2L);
            assertNotNull(back.stamp(), "the lease stamp was dropped by the log");
            assertEquals(stamped.stamp(), back.stamp());
            assertEquals(stamped.command(), back.command());
            Entry codedBack = rec.entries().get(3L);
            assertEquals(coded.coded().valueLength(), codedBack.coded().valueLength());
            assertArrayEquals(coded.coded().shard(), codedBack.coded().shard());
        }
    }
}
