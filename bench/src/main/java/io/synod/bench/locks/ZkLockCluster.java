package io.synod.bench.locks;

import io.synod.bench.ensemble.EnsembleOptions;
import io.synod.bench.ensemble.ZkEnsemble;
import io.synod.bench.report.LatencySummary;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A ZooKeeper ensemble of separate JVMs behind delay proxies ({@link ZkEnsemble}), an admin session connected
 * directly and {@code clientCount} Curator sessions connected through one follower's client proxy, so writes
 * cross a server-server link as in the seed paper. Locks come from a {@link LockUnderTest.Factory}
 * ({@link RecipesLocks}: {@code ZkLocks}).
 */
public final class ZkLockCluster implements LockCluster {
    private final ZkEnsemble ensemble;
    private final List<CuratorFramework> clients = new ArrayList<>();
    private final CuratorFramework admin;
    private final int contact;
    private final LockUnderTest.ClientLocks locks;

    private ZkLockCluster(ZkEnsemble ensemble, int clientCount, LockUnderTest.Factory factory) throws InterruptedException {
        this.ensemble = ensemble;
        this.contact = ensemble.followerIndex();
        this.admin = newClient(ensemble.directConnectString());
        for (int k = 0; k < clientCount; k++) {
            clients.add(newClient(ensemble.connectString(contact)));
        }
        this.locks = LockUnderTest.ClientLocks.of(factory, clients);
    }

    /** Starts the ensemble and connects the sessions; on failure everything started is stopped. */
    public static ZkLockCluster start(EnsembleOptions options, int clientCount, LockUnderTest.Factory factory)
            throws IOException, InterruptedException {
        ZkEnsemble ensemble = ZkEnsemble.start(options);
        try {
            return new ZkLockCluster(ensemble, clientCount, factory);
        } catch (RuntimeException | InterruptedException e) {
            ensemble.close();
            throw e;
        }
    }

    static CuratorFramework newClient(String connectString) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(60_000)
                .connectionTimeoutMs(30_000)
                .retryPolicy(new RetryNTimes(3, 500))
                .build();
        client.start();
        if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("could not connect to ZooKeeper at " + connectString);
        }
        return client;
    }

    public ZkEnsemble ensemble() {
        return ensemble;
    }

    /** The session connected to the ensemble directly (no injected delay on its own link), for set-up. */
    public CuratorFramework admin() {
        return admin;
    }

    /** The measured sessions, all through the contact server's client proxy. */
    public List<CuratorFramework> clients() {
        return clients;
    }

    @Override
    public Backend backend() {
        return Backend.ZK;
    }

    @Override
    public int clientCount() {
        return clients.size();
    }

    @Override
    public void setRtts(int clientRttMillis, int serverRttMillis) throws InterruptedException {
        Duration client = Duration.ofMillis(clientRttMillis);
        Duration server = Duration.ofMillis(serverRttMillis);
        if (!client.equals(ensemble.clientRtt()) || !server.equals(ensemble.serverRtt())) {
            ensemble.setClientRtt(client);
            ensemble.setServerRtt(server);
            // Let bytes stamped with the old delays drain and one heartbeat pass under the new ones.
            Thread.sleep(Math.max(clientRttMillis, serverRttMillis) * 2L + 50);
        }
    }

    @Override
    public LockUnderTest.ClientLocks locks() {
        return locks;
    }

    @Override
    public void prepareLockPath(String lockPath) throws Exception {
        admin.create().creatingParentsIfNeeded().forPath(lockPath);
    }

    @Override
    public LatencySummary writeLatency(String keyPrefix, int count) throws Exception {
        ZkOpsBenchmark.prepare(admin, keyPrefix);
        return ZkOpsBenchmark.runSync(clients.get(0), ZkOpsBenchmark.Op.CREATE, keyPrefix, count).latency();
    }

    @Override
    public String describe() {
        return "ZooKeeper ensemble of " + ensemble.size() + ": leader is server " + (ensemble.leaderIndex() + 1)
                + "; clients connect to server " + (contact + 1)
                + (ensemble.size() > 1 ? " (a follower, so writes cross a server-server link)" : "");
    }

    @Override
    public void close() {
        // Sessions end before the servers do, so no client is left retrying a dead ensemble.
        for (CuratorFramework client : clients) {
            client.close();
        }
        admin.close();
        ensemble.close();
    }
}
