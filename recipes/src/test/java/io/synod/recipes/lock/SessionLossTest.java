package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Loss of the hold: session expiry (the CURATOR-206/604 double-holder scenario) and a connection suspended past
 * the bound. The expired holder is told, and its token is rejected by the fenced resource once the next holder
 * has written.
 */
class SessionLossTest extends SharedServerTest {

    @ParameterizedTest
    @EnumSource(Variant.class)
    void expiredHolderIsToldAndFencedOutAndCannotReleaseTheNextHolder(Variant kind) throws Exception {
        String path = "/expiry/" + kind;
        CuratorFramework clientA = zk.newClient();
        CuratorFramework clientB = zk.newClient();
        FencedResource resource = new FencedResource();
        try (Locks.Any lockA = Locks.create(kind, clientA, path); Locks.Any lockB = Locks.create(kind, clientB, path)) {
            LockHandle holdA = lockA.acquire();
            assertTrue(resource.write(holdA.fencingToken()));
            CompletableFuture<LockHandle> waitingB = CompletableFuture.supplyAsync(() -> {
                try {
                    return lockB.acquire();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });

            zk.expireSession(clientA);

            LockLossReason reason = holdA.lost().toCompletableFuture().get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
            // Which notice arrives first is up to the server and the machine: the deletion of the node, the end of the
            // session, or (on a loaded machine, where the reconnect takes a while) the suspended-bound timer. All three
            // are correct: the hold is over either way.
            assertTrue(Set.of(LockLossReason.SESSION_LOST, LockLossReason.NODE_DELETED, LockLossReason.SESSION_SUSPENDED_TOO_LONG)
                    .contains(reason), "reason " + reason);
            assertFalse(holdA.isValid());
            assertFalse(lockA.isAcquiredInThisProcess());

            LockHandle holdB = waitingB.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(holdB.fencingToken() > holdA.fencingToken(), "tokens increase across the expiry");
            assertTrue(resource.write(holdB.fencingToken()));
            assertFalse(resource.write(holdA.fencingToken()), "the expired holder's writes are fenced out");

            // The expired holder releases late: idempotent, and it must not remove the new holder's node (for the
            // test-and-set lock the node has the same name).
            lockA.release();
            assertNotNull(clientB.checkExists().forPath(holdB.nodePath()), "new holder's node survives a stale release");
            assertTrue(holdB.isValid());

            lockB.release();
            Optional<LockHandle> again = lockA.acquire(ZkTestSupport.WAIT);
            assertTrue(again.isPresent(), "the old lock object works again in its new session");
            assertTrue(again.get().fencingToken() > holdB.fencingToken());
            lockA.release();
        }
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void holdIsLostWhenSuspendedBeyondTheBoundAndItsNodeIsRemovedWhenTheSessionComesBack(Variant kind) throws Exception {
        String path = "/suspended/" + kind;
        CuratorFramework clientA = zk.newClient();
        long sessionA = clientA.getZookeeperClient().getZooKeeper().getSessionId();
        LockOptions quickLoss = LockOptions.builder().suspendedLostBound(Duration.ofMillis(200)).build();
        try (Locks.Any lockA = Locks.create(kind, clientA, path, quickLoss)) {
            LockHandle holdA = lockA.acquire();

            zk.server.stop();
            try {
                LockLossReason reason = holdA.lost().toCompletableFuture().get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
                assertEquals(LockLossReason.SESSION_SUSPENDED_TOO_LONG, reason);
                assertFalse(holdA.isValid());
                assertFalse(lockA.isAcquiredInThisProcess());
            } finally {
                zk.server.restart(); // the class's other tests use this server
            }

            // The session survived the outage, yet nobody believes in the hold any more: its node must go, or the lock
            // would stay blocked until the session ends.
            CuratorFramework observer = zk.newClient();
            ZkTestSupport.eventually("lost hold's node deleted", () -> exists(observer, holdA.nodePath()) == Boolean.FALSE);
            assertEquals(sessionA, clientA.getZookeeperClient().getZooKeeper().getSessionId(), "same session: we deleted it");
            try (Locks.Any lockB = Locks.create(kind, observer, path)) {
                assertTrue(lockB.acquire(ZkTestSupport.WAIT).isPresent());
                lockB.release();
            }
            lockA.release(); // idempotent after loss
        }
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void waiterWhoseSessionExpiresNeverBelievesItHoldsTheLock(Variant kind) throws Exception {
        String path = "/waiter-expiry/" + kind;
        CuratorFramework clientA = zk.newClient();
        CuratorFramework clientB = zk.newClient();
        try (Locks.Any lockA = Locks.create(kind, clientA, path); Locks.Any lockB = Locks.create(kind, clientB, path)) {
            LockHandle holdA = lockA.acquire();
            Locks.InBackground background = Locks.acquireInBackground(lockB, "waiter-" + kind);
            CompletableFuture<LockHandle> waitingB = background.result();
            Thread waiter = background.thread();
            boolean queue = kind.isQueue();
            if (queue) {
                ZkTestSupport.eventually("B queued", () -> childCount(clientA, path) == 2);
            } else {
                ZkTestSupport.eventually("B waiting", background::isWaiting);
            }

            zk.expireSession(clientB);

            // A queued waiter's place died with its session: by default it joins the queue again in its new session (it
            // must not carry on with a node it no longer has, nor see the old node from the new session and believe itself
            // next). A test-and-set waiter owns no node while it waits, so it simply goes on in its new session.
            if (queue) {
                ZkTestSupport.eventually("B queued again in its new session", () -> queuedIn(clientA, path, clientB));
            }
            assertFalse(waitingB.isDone());
            assertTrue(holdA.isValid());
            lockA.release();
            LockHandle holdB = waitingB.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(holdB.fencingToken() > holdA.fencingToken());
            assertEquals(clientB.getZookeeperClient().getZooKeeper().getSessionId(),
                    clientB.checkExists().forPath(holdB.nodePath()).getEphemeralOwner(), "held in B's new session");
            lockB.release();
            waiter.join(ZkTestSupport.WAIT.toMillis());
            ZkTestSupport.eventually("nothing left", () -> childCount(clientA, path) == 0);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Variant.class, names = {"SYNC_QUEUE", "ASYNC_QUEUE", "ASYNC_QUEUE_POLL", "SYNC_QUEUE_RETRY"})
    void queuedWaiterFailsFastOnSessionLossWhenAskedTo(Variant kind) throws Exception {
        String path = "/waiter-expiry-fail-fast/" + kind;
        CuratorFramework clientA = zk.newClient();
        CuratorFramework clientB = zk.newClient();
        LockOptions failFast = LockOptions.builder().requeueOnSessionLoss(false).build();
        try (Locks.Any lockA = Locks.create(kind, clientA, path); Locks.Any lockB = Locks.create(kind, clientB, path, failFast)) {
            LockHandle holdA = lockA.acquire();
            Locks.InBackground background = Locks.acquireInBackground(lockB, "waiter-" + kind);
            CompletableFuture<LockHandle> waitingB = background.result();
            Thread waiter = background.thread();
            ZkTestSupport.eventually("B queued", () -> childCount(clientA, path) == 2);

            zk.expireSession(clientB);

            ExecutionException failure = assertThrows(ExecutionException.class,
                    () -> waitingB.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS));
            assertTrue(failure.getCause() instanceof LockSessionLostException, "cause: " + failure.getCause());
            assertFalse(lockB.isAcquiredInThisProcess());
            assertTrue(holdA.isValid());
            lockA.release();
            waiter.join(ZkTestSupport.WAIT.toMillis());
            ZkTestSupport.eventually("nothing left", () -> childCount(clientA, path) == 0);
        }
    }

    /** Whether {@code waiter}'s current session has a node in the queue. */
    private static boolean queuedIn(CuratorFramework observer, String path, CuratorFramework waiter) {
        try {
            long session = waiter.getZookeeperClient().getZooKeeper().getSessionId();
            for (String child : observer.getChildren().forPath(path)) {
                org.apache.zookeeper.data.Stat stat = observer.checkExists().forPath(path + "/" + child);
                if (stat != null && stat.getEphemeralOwner() == session) {
                    return true;
                }
            }
            return false;
        } catch (Exception e) {
            return false;
        }
    }

    private static int childCount(CuratorFramework client, String path) {
        try {
            return client.getChildren().forPath(path).size();
        } catch (Exception e) {
            return -1;
        }
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void holdIsLostWhenItsNodeIsDeletedByAnotherClient(Variant kind) throws Exception {
        String path = "/node-deleted/" + kind;
        CuratorFramework clientA = zk.newClient();
        CuratorFramework operator = zk.newClient();
        try (Locks.Any lockA = Locks.create(kind, clientA, path); Locks.Any lockB = Locks.create(kind, operator, path)) {
            LockHandle holdA = lockA.acquire();
            operator.delete().forPath(holdA.nodePath());

            assertEquals(LockLossReason.NODE_DELETED,
                    holdA.lost().toCompletableFuture().get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS));
            assertFalse(holdA.isValid());
            assertFalse(lockA.isAcquiredInThisProcess());

            LockHandle holdB = lockB.acquire(ZkTestSupport.WAIT).orElseThrow();
            lockA.release(); // after loss: nothing to delete, in particular not the new holder's node
            assertNotNull(operator.checkExists().forPath(holdB.nodePath()));
            assertTrue(holdB.isValid());
            lockB.release();
        }
    }

    @Test
    void defaultSuspendedBoundIsAThirdOfTheNegotiatedSessionTimeout() throws Exception {
        CuratorFramework client = zk.newClient();
        int negotiated = client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
        assertTrue(negotiated > 0);
        assertEquals(Duration.ofMillis(negotiated / 3), LockOptions.defaults().effectiveSuspendedLostBound(client));
        assertEquals(Duration.ZERO, LockOptions.builder().suspendedLostBound(Duration.ZERO).build().effectiveSuspendedLostBound(client));
    }

    @Test
    void lostStageCannotBeCompletedByTheHolder() throws Exception {
        CuratorFramework client = zk.newClient();
        SyncLock lock = ZkLocks.queueLock(client, "/expiry/read-only-lost");
        try {
            LockHandle hold = lock.acquire(ZkTestSupport.WAIT).orElseThrow();
            hold.lost().toCompletableFuture().complete(LockLossReason.NODE_DELETED);
            assertTrue(hold.isValid());
            assertFalse(hold.lost().toCompletableFuture().isDone());
            lock.release();
        } finally {
            lock.close();
        }
        assertEquals(0, client.getChildren().forPath("/expiry/read-only-lost").size());
    }

    private static Boolean exists(CuratorFramework client, String path) {
        try {
            return client.checkExists().forPath(path) != null;
        } catch (Exception e) {
            return null;
        }
    }
}
