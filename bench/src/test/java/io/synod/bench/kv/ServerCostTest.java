package io.synod.bench.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cost columns of {@code bench kv}: parsing Linux's /proc files and a Prometheus exposition, and a live sample. */
class ServerCostTest {

    @Test
    void cpuTicksAreUtimePlusStimeEvenWhenTheCommandNameHasSpaces() {
        // proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime ...
        String stat = "4242 (java main) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 30 0 99 0 0";
        assertEquals(1234 + 567, ServerCost.cpuTicks(stat));
        assertThrows(IllegalArgumentException.class, () -> ServerCost.cpuTicks("garbage"));
    }

    @Test
    void sectorsWrittenIsTheSeventhFieldOfTheDeviceStat() {
        String stat = "   38127     6339  2920754    10075   638312    16875 14621096    42114        0    25996    62706";
        assertEquals(14621096, ServerCost.sectorsWritten(stat));
        assertThrows(IllegalArgumentException.class, () -> ServerCost.sectorsWritten("1 2 3"));
    }

    @Test
    void peerFramesAreSummedOverEveryPeerAndUnknownOnAnOlderNode() {
        String exposition = String.join("\n",
                "# TYPE synod_peer_frames_total counter",
                "synod_peer_frames_total{peer=\"1\"} 40.0",
                "synod_peer_frames_total{peer=\"2\"} 2.0",
                "synod_peer_frames_dropped_total{peer=\"2\"} 5.0");
        assertEquals(42, ServerCost.peerFrames(exposition));
        assertEquals(-1, ServerCost.peerFrames("# TYPE synod_peer_sent_bytes_total counter\nsynod_peer_sent_bytes_total{peer=\"1\"} 9.0"));
    }

    @Test
    void fsyncCountsAreSummedOverEveryGroup() {
        String exposition = String.join("\n",
                "# HELP synod_fsync_latency_seconds one group-commit persist (write + fsync)",
                "# TYPE synod_fsync_latency_seconds summary",
                "synod_fsync_latency_seconds_count{group=\"0\"} 120",
                "synod_fsync_latency_seconds_sum{group=\"0\"} 0.5",
                "synod_fsync_latency_seconds_count{group=\"1\"} 30.0",
                "synod_fsync_latency_seconds_count_other{group=\"1\"} 7");
        assertEquals(150, ServerCost.sumSeries(exposition, "synod_fsync_latency_seconds_count"));
        assertEquals(150, ServerCost.fsyncs(exposition), "no node log counter: one fsync per group persist");
        String shared = exposition + "\n# TYPE synod_log_fsyncs_total counter\nsynod_log_fsyncs_total 90.0\n";
        assertEquals(90, ServerCost.fsyncs(shared), "the node log's own count, fewer than the group persists it served");
    }

    @Test
    void peerMessagesAreSummedByKindOverGroups() {
        String exposition = String.join("\n",
                "# TYPE synod_group_peer_sent_total counter",
                "synod_group_peer_sent_total{group=\"0\",kind=\"accept\"} 10.0",
                "synod_group_peer_sent_total{group=\"1\",kind=\"accept\"} 5.0",
                "synod_group_peer_sent_total{group=\"1\",kind=\"heartbeat\"} 2.0",
                "synod_group_peer_sent_totalx{group=\"1\",kind=\"heartbeat\"} 99.0",
                "synod_group_peer_sent_total{group=\"2\"} 7.0");
        Map<String, Long> sums = new TreeMap<>();
        ServerCost.sumByLabel(exposition, "synod_group_peer_sent_total", "kind", sums);
        ServerCost.sumByLabel(exposition, "synod_group_peer_sent_total", "kind", sums); // a second node
        assertEquals(Map.of("accept", 30L, "heartbeat", 4L), sums);
        assertEquals("accept 3.000; heartbeat 0.400", KvBenchCommand.byKind(sums, 10));
    }

    @Test
    void aLiveSampleOfThisProcessSeesItsOwnCpuAndTheDeviceItWritesTo(@TempDir Path dir) throws Exception {
        ServerCost cost = new ServerCost(List.of(ProcessHandle.current().pid()), dir, List.of());
        ServerCost.Sample before = cost.sample();
        assertEquals(-1, before.fsyncs(), "no metrics ports, no fsync count");
        // Spin until the kernel has charged at least one more tick (10 ms); bounded at 20 s of wall time.
        long deadline = System.nanoTime() + 20_000_000_000L;
        long x = 0;
        ServerCost.Sample spent;
        do {
            for (int i = 0; i < 5_000_000; i++) {
                x += i ^ (x >>> 3);
            }
            spent = cost.sample().minus(before);
        } while (spent.cpuTicks() == 0 && System.nanoTime() < deadline);
        assertTrue(spent.cpuTicks() > 0, "no CPU tick charged after spinning (" + x + ")");
        if (ServerCost.deviceStatFile(dir) != null) {
            // 4 MiB written and fsynced must reach the device (other writers only add to it).
            try (FileChannel ch = FileChannel.open(dir.resolve("f"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[4 << 20]));
                ch.force(true);
            }
            assertTrue(cost.sample().minus(before).diskWriteBytes() >= 4 << 20);
        } else {
            assertEquals(-1, spent.diskWriteBytes(), "no block device under " + dir);
        }
    }
}
