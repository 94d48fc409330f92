package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.BlockingSynodClient;
import io.synod.client.CodingChangeResult;
import io.synod.client.SynodClient;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientFrame;
import io.synod.server.client.NodeClient;
import io.synod.server.node.LocalCluster;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code synod cluster status} on a real four-node cluster (coding 4,1,2) over TLS: each group's line shows its
 * leader, epoch, commit slot, lease mode and the coding in force, read from the replicas' status frames. After an
 * admin coding change (RS-Paxos, Mu et al. 2014, section 4; docs/erasure.md "Coding changes") the changed group's
 * line shows the new coding (the creation-time spec in ZooKeeper is never rewritten by a change) and the other
 * group's keeps the old one; each node's line names the groups it leads.
 */
class ClusterStatusTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(240)
    void statusShowsTheCodingInForceAfterACodingChange() throws Exception {
        try (TestingServer zk = new TestingServer(true);
                LocalCluster cluster = new LocalCluster(new InetSocketAddress("127.0.0.1", zk.getPort()), dir, 4, 2,
                        "status", Map.of("zookeeper.session.timeout.ms", "3000", "coding", "4,1,2",
                                "coding.threshold.bytes", "4096", "lease", "leader", "lease.delta.ms", "500",
                                "lease.clock.bound.us", "1000"))) {
            cluster.startAll();
            assertTrue(cluster.awaitLeaders(60_000), "every group gets a leader");
            String before = awaitGroupLine(cluster, 1, "threshold=4096B");
            assertTrue(before.matches("leader node \\d \\(epoch \\d+\\), commit slot \\d+, lease leader, coding N=4 F=1 X=2 "
                    + "threshold=4096B"), before);

            try (SynodClient async = SynodClient.builder().servers(new ArrayList<>(cluster.clientAddresses().values()))
                    .timeout(Duration.ofSeconds(60)).connectTimeout(Duration.ofSeconds(30)).tls(cluster.clientTls())
                    .build()) {
                BlockingSynodClient client = async.blocking();
                CodingChangeResult changed = client.changeCoding(1, 1, 1, 8192);
                assertTrue(changed.coding().contains("threshold=8192B"), changed.coding());
            }
            String after = awaitGroupLine(cluster, 1, "threshold=8192B");
            assertTrue(after.contains("lease leader, coding N=4 F=1 X=1 threshold=8192B"), after);
            assertTrue(awaitGroupLine(cluster, 0, "threshold=4096B").contains("coding N=4 F=1 X=2 threshold=4096B"),
                    "group 0 keeps its coding");

            // Each node's line names the groups it leads: in one round of reports where every group has one leader
            // (a leader hand-over may be under way: wait, bounded), the lines together name each group once.
            awaitLeadsLines(cluster);
        }
    }

    private static void awaitLeadsLines(LocalCluster cluster) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        List<String> lines = List.of();
        while (System.nanoTime() < deadline) {
            List<String> led = new ArrayList<>();
            lines = new ArrayList<>();
            for (int node = 0; node < cluster.size(); node++) {
                ClientFrame.StatusReport r = report(cluster, node);
                String leads = ClusterCommand.Status.leads(r);
                lines.add(node + ": " + leads);
                for (ClientFrame.GroupStatus g : r.groups()) {
                    if (g.role() == Role.LEADER.ordinal()) {
                        led.add(String.valueOf(g.group()));
                        assertTrue(leads.matches("leads groups? (\\d+, )*" + g.group() + "(, \\d+)*"), leads);
                    }
                }
                if (!leads.startsWith("leads group")) {
                    assertEquals("leads no group", leads);
                }
            }
            if (led.stream().sorted().toList().equals(List.of("0", "1"))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("never one leader per group: " + lines);
    }

    private static ClientFrame.StatusReport report(LocalCluster cluster, int node) throws Exception {
        return NodeClient.status(cluster.clientAddresses().get(node), 5_000, 1 << 20, cluster.clientTls());
    }

    /** The status line of {@code group} once it contains {@code expected} (bounded wait: replicas apply in turn). */
    private static String awaitGroupLine(LocalCluster cluster, int group, String expected) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        String line;
        do {
            List<ClientFrame.StatusReport> reports = new ArrayList<>();
            for (int node = 0; node < cluster.size(); node++) {
                reports.add(report(cluster, node));
            }
            line = ClusterCommand.Status.describeGroup(group, reports);
            if (line.contains(expected) && !line.startsWith("leader none")) {
                return line;
            }
            Thread.sleep(50);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("group " + group + " status never showed " + expected + ": " + line);
    }
}
