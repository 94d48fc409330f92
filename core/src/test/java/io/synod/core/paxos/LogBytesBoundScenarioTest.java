package io.synod.core.paxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The log a replica holds between snapshots is bounded in bytes as well as in slots
 * ({@link ReplicaConfig#snapshotEveryBytes()}, {@link ReplicaConfig#logRetainBytes()}): the acceptor keeps every entry
 * in memory until a snapshot compacts it, so with a slot bound alone large values filled the heap (600 values of
 * 512 KiB took a 384 MiB server down before its first snapshot at 10,000 slots). The durable log of the test disk
 * mirrors the acceptor's (both are compacted through the same slot).
 */
class LogBytesBoundScenarioTest {
    private static final long MS = 1_000_000L;
    private static final int VALUE = 8 * 1024;
    private static final long EVERY = 64 * 1024;
    private static final long RETAIN = 16 * 1024;

    private static long logBytes(TestCluster cluster, int node) {
        long sum = 0;
        for (Entry e : cluster.disks[node].entries.values()) {
            sum += e.sizeBytes();
        }
        return sum;
    }

    private static byte[] value(int i) {
        byte[] v = new byte[VALUE];
        Arrays.fill(v, (byte) i);
        return v;
    }

    /** Three replicas with production's slot bounds and small byte bounds; node 0 leads. */
    private static TestCluster cluster() {
        TestCluster cluster = new TestCluster(3, ReplicaConfig.defaults(0, 3).withSnapshotEverySlots(10_000, 1_000)
                .withSnapshotEveryBytes(EVERY, RETAIN));
        cluster.elect(0, 1);
        return cluster;
    }

    @Test
    void largeValuesAreSnapshottedByBytesLongBeforeTheSlotBound() {
        TestCluster cluster = cluster();
        long bound = EVERY + RETAIN + 2L * (VALUE + 64); // what may lie above the snapshot, below it, and one more entry
        long most = 0;
        for (int i = 1; i <= 200; i++) {
            cluster.propose(0, 7, i, new KvCommand.Put("k" + (i % 5), value(i)));
            assertEquals(ClientReply.Status.OK, cluster.lastReply(7).status());
            for (int node = 0; node < 3; node++) {
                long bytes = logBytes(cluster, node);
                most = Math.max(most, bytes);
                assertTrue(bytes <= bound, "node " + node + " holds " + bytes + " B of log after write " + i
                        + ", more than the bound " + bound);
            }
        }
        // 200 x 8 KiB is 1.6 MiB: without the byte bound every entry would still be held (10,000 slots are not reached).
        assertTrue(cluster.replicas[0].snapshotSlot() >= 180, "snapshots were taken by bytes: " + cluster.replicas[0].snapshotSlot());
        assertTrue(most > EVERY, "the log grew to a snapshot's worth between snapshots: " + most);
    }

    @Test
    void retentionBelowTheSnapshotIsBoundedInBytesAndABehindFollowerGetsTheSnapshot() {
        TestCluster cluster = cluster();
        cluster.crash(2);
        for (int i = 1; i <= 60; i++) {
            cluster.propose(0, 7, i, new KvCommand.Append("list", i));
            cluster.propose(0, 8, i, new KvCommand.Put("big" + (i % 3), value(i)));
        }
        long snapshot = cluster.replicas[0].snapshotSlot();
        assertTrue(snapshot > 0, "the leader snapshotted by bytes");
        long below = 0;
        for (Entry e : cluster.disks[0].entries.headMap(snapshot, true).values()) {
            below += e.sizeBytes();
        }
        assertTrue(below <= RETAIN, "at most log.retain.bytes kept below the snapshot, was " + below);
        assertTrue(cluster.disks[0].entries.headMap(snapshot, true).size() < 1_000, "fewer slots kept than the slot bound");
        cluster.restart(2);
        for (int t = 0; t < 5; t++) {
            cluster.tick(100 * MS);
        }
        assertArrayEquals(cluster.readList(0, "list"), cluster.readList(2, "list"));
        assertTrue(cluster.disks[2].snapshot.lastIncludedSlot() > 0, "the follower caught up from the snapshot");
    }
}
