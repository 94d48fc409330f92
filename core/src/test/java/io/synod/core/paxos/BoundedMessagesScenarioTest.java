package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * No message carries a whole log or a whole snapshot (DESIGN: "bound every queue, batch and
 * frame"): phase 1 promises come in pages the new leader asks for one after the other, and
 * snapshots travel in chunks the receiver asks for by offset, so a transfer cut midway resumes
 * where it stopped. The Paxos rules are unchanged (Paxos Made Simple §2.2: the leader still learns
 * every accepted value past its commit point before it proposes).
 */
class BoundedMessagesScenarioTest {
    private static final long MS = 1_000_000L;
    private static final int PAGE_BYTES = 128;
    private static final int CHUNK_BYTES = 32;

    private static long[] oneTo(int n) {
        return LongStream.rangeClosed(1, n).toArray();
    }

    private static int bytes(List<Entry> entries) {
        return entries.stream().mapToInt(Entry::sizeBytes).sum();
    }

    /** Node 0 leads and commits {@code writes} appends with node 1 while node 2 hears nothing. */
    private static TestCluster writeWithoutNode2(ReplicaConfig.Builder config, int writes) {
        TestCluster cluster = new TestCluster(3, config.build());
        cluster.elect(0, 1);
        cluster.drop = m -> m.to() == 2 || m.from() == 2;
        for (int i = 1; i <= writes; i++) {
            cluster.propose(0, 7, i, new KvCommand.Append("k", i));
            assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
        }
        return cluster;
    }

    /** Snapshots every five slots, keeping no log below them, sent in small chunks. */
    private static ReplicaConfig.Builder compactingEveryFiveSlots() {
        return ReplicaConfig.defaults(0, 3).toBuilder().snapshotEverySlots(5).logRetainSlots(0).snapshotChunkBytes(CHUNK_BYTES);
    }

    @Test
    void aTakeoverRecoversARangeThatSpansManyPromisePages() {
        TestCluster cluster = writeWithoutNode2(ReplicaConfig.defaults(0, 3).toBuilder().maxPromiseBytes(PAGE_BYTES), 40);
        cluster.crash(0);

        // Node 2 (commit point 0) takes over with node 1, which holds slots 1..40.
        List<Message.Promise> pages = new ArrayList<>();
        List<Long> prepareSlots = new ArrayList<>();
        cluster.drop = m -> {
            if (m instanceof Message.Promise p && p.from() == 1) {
                pages.add(p);
            } else if (m instanceof Message.Prepare p && p.to() == 1) {
                prepareSlots.add(p.fromSlot());
            }
            return false;
        };
        cluster.elect(2, 2);
        assertEquals(Role.LEADER, cluster.replicas[2].role());
        assertTrue(pages.size() >= 10, "40 entries in pages of " + PAGE_BYTES + " bytes: " + pages.size() + " pages");
        for (Message.Promise page : pages) {
            assertTrue(page.accepted().size() == 1 || bytes(page.accepted()) <= PAGE_BYTES, "page over the bound: " + page);
        }
        assertEquals(0, pages.get(pages.size() - 1).nextSlot(), "the last page says so");
        for (int i = 1; i < prepareSlots.size(); i++) {
            assertTrue(prepareSlots.get(i) > prepareSlots.get(i - 1), "the leader asks for each next page: " + prepareSlots);
        }
        cluster.tick(100 * MS);
        assertArrayEquals(oneTo(40), cluster.readList(2, "k"), "every recovered value re-proposed, none replaced by a no-op");
        assertArrayEquals(oneTo(40), cluster.readList(1, "k"));
    }

    @Test
    void aSnapshotInstallCutMidwayResumesWhereItStopped() {
        TestCluster cluster = writeWithoutNode2(compactingEveryFiveSlots(), 30);
        assertEquals(30, cluster.replicas[0].snapshotSlot(), "the leader compacted everything node 2 misses");

        // Node 2 comes back; three chunks arrive, then the link fails and everything is lost.
        TestCluster.SnapshotCut link = new TestCluster.SnapshotCut(2, 3);
        cluster.drop = link;
        List<Message.InstallSnapshot> delivered = link.delivered;
        cluster.tick(100 * MS);
        assertEquals(3, delivered.size());
        assertTrue(link.cut, "the transfer was cut midway");
        long totalBytes = delivered.get(0).totalBytes();
        assertTrue(totalBytes > 4 * CHUNK_BYTES, "the snapshot needs more chunks than were delivered: " + totalBytes);
        cluster.tick(300 * MS); // the leader keeps retrying into the void
        assertEquals(0, cluster.replicas[2].appliedSlot());

        link.heal();
        int before = delivered.size();
        for (int round = 0; round < 20 && cluster.replicas[2].appliedSlot() < 30; round++) {
            cluster.tick(100 * MS);
        }
        assertEquals(30, cluster.replicas[2].appliedSlot(), "node 2 installed the snapshot");
        // After the silence the leader asks where node 2 stands with an empty chunk (its requests were cut too), so
        // the first bytes after the cut are those at the cut.
        Message.InstallSnapshot resumed = delivered.subList(before, delivered.size()).stream()
                .filter(c -> c.chunk().length > 0).findFirst().orElseThrow();
        assertEquals(3L * CHUNK_BYTES, resumed.offset(), "the transfer resumed at the cut, not at 0");
        long bytesSent = 0;
        for (Message.InstallSnapshot chunk : delivered) {
            assertTrue(chunk.chunk().length <= CHUNK_BYTES, "chunk over the bound");
            bytesSent += chunk.chunk().length;
        }
        assertEquals(totalBytes, bytesSent, "every byte arrived exactly once");
        assertArrayEquals(oneTo(30), cluster.readList(2, "k"));
    }

    @Test
    void aCandidateBehindAPromisersSnapshotFetchesItInChunksBeforeLeading() {
        TestCluster cluster = writeWithoutNode2(compactingEveryFiveSlots(), 20);
        cluster.crash(0);
        assertEquals(20, cluster.replicas[1].snapshotSlot());

        List<Message.InstallSnapshot> chunks = new ArrayList<>();
        cluster.drop = m -> {
            if (m instanceof Message.InstallSnapshot chunk && chunk.from() == 1) {
                chunks.add(chunk);
            }
            return false;
        };
        cluster.elect(2, 2); // commit point 0; node 1's promise has no entries, only its snapshot slot 20
        assertEquals(Role.LEADER, cluster.replicas[2].role());
        assertTrue(chunks.size() > 1, "the snapshot came in chunks: " + chunks.size());
        assertTrue(chunks.stream().allMatch(c -> c.chunk().length <= CHUNK_BYTES));
        assertEquals(20, cluster.replicas[2].appliedSlot());
        cluster.propose(2, 8, 1, new KvCommand.Append("k", 21));
        assertEquals(ClientReply.Status.OK, cluster.lastReply(8).status());
        assertEquals(21, cluster.lastReply(8).slot(), "the new leader continues after the snapshot, not over it");
        assertArrayEquals(oneTo(21), cluster.readList(2, "k"));
    }
}
