package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Eight sessions contend while ZooKeeper fails underneath them, so that creates, lists, watches and deletes fail or
 * lose their replies at arbitrary points: a standalone server stopped and restarted, and the member of a
 * three-server ensemble that a client is connected to killed (clients fail over; if it led, a new leader is
 * elected). Acquisitions may fail (typed); what must hold is exclusion with increasing tokens, every client
 * contending through the disruption and finishing its rounds after it within its deadline ({@link ContendingClient}:
 * bounded by time, not by tries, which a fail-over can burn in milliseconds), and no node left behind.
 */
class ContentionUnderFailuresTest extends SharedServerTest {

    private static final int CLIENTS = 8;
    private static final int ROUNDS_PER_CLIENT = 5;

    @ParameterizedTest
    @EnumSource(Variant.class)
    void exclusionSurvivesAStandaloneServerRestart(Variant kind) throws Exception {
        contendThrough(kind, zk.connectString(), () -> {
            zk.server.stop();
            try {
                Thread.sleep(500);
            } finally {
                zk.server.restart();
            }
        });
    }

    @ParameterizedTest
    @EnumSource(value = Variant.class, names = {"SYNC_QUEUE", "ASYNC_QUEUE", "SYNC_TAS", "ASYNC_TAS", "ASYNC_TAS_POLL"})
    void exclusionSurvivesLosingAnEnsembleMember(Variant kind) throws Exception {
        java.nio.file.Path ensembleFiles = java.nio.file.Files.createTempDirectory("synod-recipes-ensemble");
        try (TestingCluster ensemble = startEnsemble(ensembleFiles)) {
            try {
                contendThrough(kind, ensemble.getConnectString(), () -> {
                    CuratorFramework probe = zk.newClient(ensemble.getConnectString(), new RetryNTimes(10, 200));
                    InstanceSpec connectedTo = ensemble.findConnectionInstance(probe.getZookeeperClient().getZooKeeper());
                    ensemble.killServer(connectedTo);
                });
            } finally {
                // While the ensemble still runs: a client whose servers are all gone waits out a failed reconnect
                // before its close returns.
                zk.closeClients();
            }
        } finally {
            ZkTestSupport.deleteTree(ensembleFiles);
        }
    }

    /**
     * Three servers on 127.0.0.1 only (client, quorum and election ports). Their data directories live under
     * {@code files}, where ZooKeeper also writes its zookeeper.configuration*.properties files (next to each data
     * directory), so that nothing is left in the system temp directory.
     */
    private static TestingCluster startEnsemble(java.nio.file.Path files) throws Exception {
        List<InstanceSpec> specs = new ArrayList<>();
        for (int serverId = 1; serverId <= 3; serverId++) {
            File dataDir = files.resolve("server-" + serverId).resolve("data").toFile();
            if (!dataDir.mkdirs()) {
                throw new java.io.IOException("cannot create " + dataDir);
            }
            specs.add(new InstanceSpec(dataDir, -1, -1, -1, true, serverId, -1, -1,
                    Map.of("clientPortAddress", ZkTestSupport.HOST), ZkTestSupport.HOST));
        }
        TestingCluster ensemble = new TestingCluster(specs);
        ensemble.start();
        return ensemble;
    }

    @FunctionalInterface
    private interface Disruption {
        void run() throws Exception;
    }

    private static void contendThrough(Variant kind, String connectString, Disruption disruption) throws Exception {
        String path = "/contention/" + kind;
        List<CuratorFramework> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(zk.newClient(connectString, new RetryNTimes(10, 200)));
        }
        FencedResource resource = new FencedResource();
        AtomicInteger grants = new AtomicInteger();
        AtomicBoolean disruptionOver = new AtomicBoolean();
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
        int rounds;
        try {
            List<Future<Integer>> runs = new ArrayList<>();
            for (CuratorFramework client : clients) {
                String name = "client " + runs.size();
                runs.add(threads.submit(() -> {
                    try (Locks.Any lock = Locks.create(kind, client, path)) {
                        return new ContendingClient(name, lock, Duration.ofSeconds(5), resource, grants).run(ROUNDS_PER_CLIENT, disruptionOver::get);
                    }
                }));
            }
            // Let contention build up, then disrupt ZooKeeper under it.
            ZkTestSupport.eventually("contention under way", () -> grants.get() >= CLIENTS);
            disruption.run();
            disruptionOver.set(true);
            rounds = ContendingClient.awaitAll(runs);
        } finally {
            threads.shutdownNow();
        }
        assertEquals(List.of(), resource.violations());
        assertEquals(rounds, resource.entryTokens().size());
        CuratorFramework observer = clients.get(0);
        ZkTestSupport.eventually("no node left behind", () -> {
            try {
                return observer.getChildren().forPath(path).isEmpty();
            } catch (Exception e) {
                return false;
            }
        });
    }
}
