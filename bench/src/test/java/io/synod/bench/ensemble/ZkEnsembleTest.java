package io.synod.bench.ensemble;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
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
            // Every pair of servers holds an election connection, and each one was made through a proxy.
            long electionConnections = ensemble.servers().stream()
                    .mapToLong(node -> node.electionProxy().connectionsAccepted()).sum();
            assertTrue(electionConnections >= 3, "election connections through proxies: " + electionConnections);
            assertOnlyThisJvmConnectsToRealPeerPorts(ensemble);

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

    /**
     * Every established TCP connection to a server's real quorum or election port must come from this JVM
     * (that is, from a proxy): a connection from another server JVM would be a link without injected delay.
     * Reads Linux's /proc/net/tcp; skipped elsewhere.
     */
    private static void assertOnlyThisJvmConnectsToRealPeerPorts(ZkEnsemble ensemble) throws Exception {
        // Java's sockets are dual-stack, so IPv4 loopback connections may be listed in tcp6 as mapped addresses.
        List<Path> tables = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));
        Assumptions.assumeTrue(Files.isReadable(tables.get(0)) && Files.isDirectory(Path.of("/proc/self/fd")));
        Set<Integer> realPeerPorts = new HashSet<>();
        for (ZkEnsemble.ServerNode node : ensemble.servers()) {
            realPeerPorts.add(node.quorumPort);
            realPeerPorts.add(node.electionPort);
        }
        Set<String> ownSocketInodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        ownSocketInodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // fd closed between listing and reading: not a socket we need.
                }
            }
        }
        int checked = 0;
        List<String> lines = new ArrayList<>();
        for (Path table : tables) {
            if (Files.isReadable(table)) {
                List<String> all = Files.readAllLines(table);
                lines.addAll(all.subList(1, all.size()));
            }
        }
        for (String line : lines) {
            String[] fields = line.trim().split("\\s+");
            String state = fields[3];
            int remotePort = Integer.parseInt(fields[2].substring(fields[2].indexOf(':') + 1), 16);
            if (state.equals("01") && realPeerPorts.contains(remotePort)) {
                checked++;
                assertTrue(ownSocketInodes.contains(fields[9]),
                        "a connection to real peer port " + remotePort + " bypasses the proxies: " + line);
            }
        }
        assertTrue(checked >= 3, "expected proxied peer connections, saw " + checked);
    }

    /** Reaches the child process of a server node (package-private field) for the liveness check. */
    static final class ProcessHandleAccess {
        static Process of(ZkEnsemble.ServerNode node) {
            return node.process;
        }
    }
}
