package io.synod.bench.ensemble;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A real ensemble in child JVMs, with its links through delay proxies. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ZkEnsembleTest {

    @Test
    void threeServersElectALeaderAndQuorumTrafficCrossesTheServerProxies() throws Exception {
        List<Process> processes = new ArrayList<>();
        try (ZkEnsemble ensemble = ZkEnsemble.start(EnsembleOptions.of(3))) {
            ensemble.servers().forEach(node -> processes.add(ProcessHandleAccess.of(node)));
            int leader = ensemble.leaderIndex();
            int follower = ensemble.followerIndex();
            assertTrue(leader != follower);
            // Followers dial the leader's quorum address, which in their configs is the leader's proxy.
            assertTrue(ensemble.servers().get(leader).quorumProxy().connectionsAccepted() >= 2,
                    "followers did not connect through the leader's quorum proxy");
            assertTrue(ensemble.servers().get(leader).quorumProxy().bytesForwarded() > 0);

            long serverRttNanos = TimeUnit.MILLISECONDS.toNanos(120);
            try (CuratorFramework client = CuratorFrameworkFactory.newClient(ensemble.connectString(follower),
                    30_000, 10_000, new RetryNTimes(3, 500))) {
                client.start();
                assertTrue(client.blockUntilConnected(30, TimeUnit.SECONDS));
                client.create().forPath("/warmup", new byte[] {1});
                ensemble.setServerRtt(Duration.ofNanos(serverRttNanos));
                long start = System.nanoTime();
                client.create().forPath("/slow", new byte[] {2});
                long writeNanos = System.nanoTime() - start;
                // A write commits only after the leader hears from a follower: at least one server RTT.
                assertTrue(writeNanos >= serverRttNanos,
                        "write took " + writeNanos / 1e6 + "ms, less than the server RTT");
                assertArrayEquals(new byte[] {2}, client.getData().forPath("/slow"));
                System.out.printf("ZkEnsemble: create via follower with server RTT 120ms took %.1fms%n",
                        writeNanos / 1e6);
            }
        }
        for (Process process : processes) {
            assertFalse(process.isAlive(), "server JVM " + process.pid() + " survived close()");
        }
    }

    @Test
    void singleServerServesThroughTheClientProxyWithItsDelay() throws Exception {
        long clientRttNanos = TimeUnit.MILLISECONDS.toNanos(60);
        try (ZkEnsemble ensemble = ZkEnsemble.start(EnsembleOptions.of(1))) {
            assertEquals("standalone", ensemble.mode(ensemble.servers().get(0)).orElseThrow());
            try (CuratorFramework client = CuratorFrameworkFactory.newClient(ensemble.connectString(),
                    30_000, 10_000, new RetryNTimes(3, 500))) {
                client.start();
                assertTrue(client.blockUntilConnected(30, TimeUnit.SECONDS));
                client.create().forPath("/x");
                ensemble.setClientRtt(Duration.ofNanos(clientRttNanos));
                long start = System.nanoTime();
                client.checkExists().forPath("/x");
                long readNanos = System.nanoTime() - start;
                assertTrue(readNanos >= clientRttNanos, "exists took " + readNanos / 1e6 + "ms");
            }
        }
    }

    /** Reaches the child process of a server node (package-private field) for the liveness check. */
    static final class ProcessHandleAccess {
        static Process of(ZkEnsemble.ServerNode node) {
            return node.process;
        }
    }
}
