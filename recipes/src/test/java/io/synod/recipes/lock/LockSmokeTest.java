package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** One client, each kind: acquire, release, acquire again; the adapter; misuse errors. */
class LockSmokeTest {

    private static ZkTestSupport zk;
    private static CuratorFramework client;

    @BeforeAll
    static void start() throws Exception {
        zk = new ZkTestSupport();
        client = zk.newClient();
    }

    @AfterAll
    static void stop() throws Exception {
        zk.close();
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void acquireReleaseAcquireGivesIncreasingTokensAndCleansUp(LockKind kind) throws Exception {
        String path = "/smoke/" + kind;
        try (Locks.Any lock = Locks.create(kind, client, path)) {
            assertThrows(LockStateException.class, lock::release, "release before any acquire");
            LockHandle first = lock.acquire();
            assertTrue(first.isValid());
            assertTrue(lock.isAcquiredInThisProcess());
            assertEquals(path, first.lockPath());
            assertTrue(client.checkExists().forPath(first.nodePath()) != null, "hold node exists");
            assertThrows(LockStateException.class, lock::acquire, "not reentrant");
            lock.release();
            assertFalse(first.isValid());
            assertFalse(lock.isAcquiredInThisProcess());
            lock.release(); // idempotent
            assertEquals(null, client.checkExists().forPath(first.nodePath()), "hold node deleted on release");
            LockHandle second = lock.acquire();
            assertTrue(second.fencingToken() > first.fencingToken(), "tokens increase");
            lock.release();
            assertFalse(first.lost().toCompletableFuture().isDone(), "release is not loss");
            assertEquals(0, client.getChildren().forPath(path).size(), "nothing left under the lock path");
        }
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void worksUnderACuratorNamespace(LockKind kind) throws Exception {
        // Deletes go through ZooKeeper's own handle (NodeReaper), which must apply the namespace itself.
        CuratorFramework namespaced = client.usingNamespace("smoke-ns");
        String path = "/lock/" + kind;
        try (Locks.Any lock = Locks.create(kind, namespaced, path); Locks.Any other = Locks.create(kind, namespaced, path)) {
            LockHandle hold = lock.acquire();
            assertTrue(client.checkExists().forPath("/smoke-ns" + hold.nodePath()) != null, "node created inside the namespace");
            assertFalse(other.acquire(java.time.Duration.ofMillis(100)).isPresent());
            lock.release();
            assertEquals(null, client.checkExists().forPath("/smoke-ns" + hold.nodePath()), "release deleted it");
            assertTrue(other.acquire(ZkTestSupport.WAIT).isPresent());
            other.release();
        }
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void closingTheClientUnderAHoldSignalsLoss(LockKind kind) throws Exception {
        CuratorFramework doomed = zk.newClient();
        try (Locks.Any lock = Locks.create(kind, doomed, "/smoke-closed-client/" + kind)) {
            LockHandle hold = lock.acquire();
            doomed.close();
            assertEquals(LockLossReason.SESSION_LOST, hold.lost().toCompletableFuture().get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS));
            assertFalse(lock.isAcquiredInThisProcess());
        }
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void interProcessLockAdapterWorks(LockKind kind) throws Exception {
        String path = "/smoke-adapter/" + kind;
        try (Locks.Any lock = Locks.create(kind, client, path)) {
            InterProcessLock adapted = lock.asInterProcessLock();
            assertTrue(adapted.acquire(5, TimeUnit.SECONDS));
            assertTrue(adapted.isAcquiredInThisProcess());
            try (Locks.Any other = Locks.create(kind, client, path)) {
                assertFalse(other.asInterProcessLock().acquire(100, TimeUnit.MILLISECONDS), "held by the first lock object");
            }
            adapted.release();
            assertFalse(adapted.isAcquiredInThisProcess());
        }
    }
}
