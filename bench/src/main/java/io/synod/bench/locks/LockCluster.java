package io.synod.bench.locks;

import io.synod.bench.report.LatencySummary;

/**
 * A running system the lock experiments measure, with its client sessions and its injected latencies: a
 * ZooKeeper ensemble ({@link ZkLockCluster}) or a Synod cluster ({@link SynodLockCluster}). Client-server RTT
 * comes from {@code DelayProxy} in front of the servers' client ports, server-server RTT from proxied quorum links
 * (ZooKeeper) or the peer transport's delay (Synod, {@code peer.delay.ms}).
 */
public interface LockCluster extends AutoCloseable {

    Backend backend();

    /** Client sessions contending for the lock. */
    int clientCount();

    /** Sets the injected client-server and server-server round-trip times; returns when they are in effect. */
    void setRtts(int clientRttMillis, int serverRttMillis) throws Exception;

    /** Makes client k's lock of one primitive on one lock path. */
    LockUnderTest.ClientLocks locks();

    /** Creates what a lock path needs before its first run (ZooKeeper: the lock node). */
    void prepareLockPath(String lockPath) throws Exception;

    /**
     * Latencies of {@code count} sequential single-key writes from client 0 at the current RTTs: the cost of
     * client RTT + one commit on this backend (ZooKeeper: setData; Synod: put), the baseline of the lock targets.
     */
    LatencySummary writeLatency(String keyPrefix, int count) throws Exception;

    /** One line for progress output. */
    String describe();

    @Override
    void close();
}
