package io.synod.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.coordination.LeaseMode;
import io.synod.coordination.Placement;
import io.synod.core.paxos.Coding;
import io.synod.server.config.ServerConfig;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Who may join a running cluster, and where the nodes are (docs/membership.md, "Adding a node"); pure checks. */
class NodeJoinTest {
    private static final Placement THREE = new Placement(3, 3, List.of(), List.of(List.of(0, 1, 2)),
            List.of(List.of(0, 1, 2)));

    private static ServerConfig config(int id, String nodes, String... more) throws Exception {
        Properties p = new Properties();
        p.setProperty("cluster.name", "c");
        p.setProperty("node.id", Integer.toString(id));
        p.setProperty("nodes", nodes);
        p.setProperty("zookeeper.connect", "127.0.0.1:2181");
        p.setProperty("data.dir", "/tmp/unused");
        p.setProperty("insecure", "true");
        p.setProperty("replicas", "3");
        for (String kv : more) {
            p.setProperty(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
        return ServerConfig.from(p);
    }

    private static final String FOUR = "0@h:1:2,1@h:3:4,2@h:5:6,3@h:7:8";

    @Test
    void theNextIdOfAPlainClusterMayJoin() throws Exception {
        ServerConfig joiner = config(3, FOUR);
        assertTrue(NodeJoin.joining(joiner, THREE));
        for (LeaseMode lease : LeaseMode.values()) { // quorum leases too: a joined node is a spare (QL1, QL2)
            assertNull(NodeJoin.refusal(joiner, THREE, Coding.OFF, lease), lease.name());
        }
    }

    @Test
    void codedLeaseClustersAndGapsAreRefused() throws Exception {
        ServerConfig joiner = config(3, FOUR);
        // Coded groups take a joined node (its ids get full copies, rule M9) with no lease or a leader lease (LL1), not
        // with quorum leases (their simulation with coding read stale).
        for (LeaseMode lease : new LeaseMode[] {LeaseMode.NONE, LeaseMode.LEADER, LeaseMode.LEADER_TIMER}) {
            assertNull(NodeJoin.refusal(joiner, THREE, Coding.rsPaxos(5, 1, 3, 1), lease), lease.name());
        }
        for (LeaseMode lease : new LeaseMode[] {LeaseMode.QUORUM, LeaseMode.QUORUM_AUTO, LeaseMode.MEGASTORE}) {
            assertTrue(NodeJoin.refusal(joiner, THREE, Coding.rsPaxos(5, 1, 3, 1), lease)
                    .contains("not simulated safe with membership changes"), lease.name());
        }
        String gap = NodeJoin.refusal(config(4, FOUR + ",4@h:9:10"), THREE, Coding.OFF, LeaseMode.NONE);
        assertTrue(gap.contains("a new node takes id 3"), gap);
        String zones = NodeJoin.refusal(config(3, FOUR, "node.zones=a,b,c,d"), THREE, Coding.OFF, LeaseMode.NONE);
        assertTrue(zones.contains("name no zone"), zones);
    }

    @Test
    void joinedAddressesComeFromThePlacementAndAConflictIsRefused() throws Exception {
        Placement joined = THREE.withNode(3, "h:7:8", "");
        ServerConfig seed = config(1, "0@h:1:2,1@h:3:4,2@h:5:6");
        Map<Integer, ServerConfig.NodeAddress> addresses = NodeJoin.addresses(seed, joined);
        assertEquals(new ServerConfig.NodeAddress("h", 7, 8), addresses.get(3), "the seed set plus the joined node");
        assertEquals(4, addresses.size());
        assertEquals(addresses, NodeJoin.addresses(config(1, FOUR), joined), "a configuration that agrees");
        IllegalStateException conflict = assertThrows(IllegalStateException.class,
                () -> NodeJoin.addresses(config(1, "0@h:1:2,1@h:3:4,2@h:5:6,3@h:70:80"), joined));
        assertTrue(conflict.getMessage().contains("its nodes list node 3 at h:70:80, but node 3 joined cluster 'c' at "
                + "h:7:8"), conflict.getMessage());
        IllegalStateException unknown = assertThrows(IllegalStateException.class,
                () -> NodeJoin.addresses(config(1, FOUR + ",4@h:9:10"), joined));
        assertTrue(unknown.getMessage().contains("has nodes 0..3"), unknown.getMessage());
        assertThrows(IllegalStateException.class, () -> NodeJoin.parseAddress("h:7"));
        assertEquals(new ServerConfig.NodeAddress("::1", 7, 8), NodeJoin.parseAddress("::1:7:8"));
    }
}
