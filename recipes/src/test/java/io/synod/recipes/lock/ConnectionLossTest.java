package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The create succeeds on the server but its reply is lost. Whether Curator then retries the create or gives up,
 * the result must be one hold or none, never a leaked node that blocks the lock nor a second holder.
 *
 * <p>One server for the class (only the proxy's links are cut here, the server never stops, and every test has
 * lock paths of its own); each test gets its own proxy and clients.
 */
class ConnectionLossTest extends SharedServerTest {

    private ReplyDroppingProxy proxy;
    private CuratorFramework observer;

    @BeforeEach
    void start() throws Exception {
        proxy = new ReplyDroppingProxy(zk.server.getPort());
        observer = zk.newClient();
    }

    @AfterEach
    void stop() throws Exception {
        // Clients first, while the proxy still carries their close; then the proxy.
        zk.closeClients();
        proxy.close();
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void lostCreateReplyRetriedByCuratorYieldsExactlyOneHold(Variant kind) throws Exception {
        String path = "/lost-reply/" + kind;
        CuratorFramework lockClient = zk.newClient(proxy.connectString(), new RetryNTimes(20, 100));
        long session = lockClient.getZookeeperClient().getZooKeeper().getSessionId();
        try (Locks.Any lock = Locks.create(kind, lockClient, path); Locks.Any contender = Locks.create(kind, observer, path)) {
            CompletableFuture<LockHandle> acquiring = acquireWithLostReply(lock, path, kind);

            LockHandle hold = acquiring.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(hold.isValid());
            assertEquals(session, lockClient.getZookeeperClient().getZooKeeper().getSessionId(), "the session survived");
            if (isQueue(kind)) {
                ZkTestSupport.eventually("stray duplicate removed", () -> children(path).size() == 1);
                assertEquals(List.of(hold.nodePath().substring(path.length() + 1)), children(path));
            } else {
                Stat holder = observer.checkExists().forPath(hold.nodePath());
                assertEquals(session, holder.getEphemeralOwner(), "the adopted node is ours");
            }
            assertFalse(contender.acquire(Duration.ofMillis(300)).isPresent(), "no second holder");

            lock.release();
            ZkTestSupport.eventually("nothing left after release", () -> children(path).isEmpty());
            assertTrue(contender.acquire(ZkTestSupport.WAIT).isPresent(), "the lock is free again");
            contender.release();
        }
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void lostCreateReplyWithoutRetryFailsTypedAndTheOrphanIsReaped(Variant kind) throws Exception {
        String path = "/lost-reply-no-retry/" + kind;
        CuratorFramework lockClient = zk.newClient(proxy.connectString(), new RetryNTimes(0, 0));
        long session = lockClient.getZookeeperClient().getZooKeeper().getSessionId();
        try (Locks.Any lock = Locks.create(kind, lockClient, path); Locks.Any contender = Locks.create(kind, observer, path)) {
            CompletableFuture<LockHandle> acquiring = acquireWithLostReply(lock, path, kind);

            ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> acquiring.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS));
            Throwable cause = failure.getCause();
            assertTrue(cause instanceof LockCoordinationException, "typed failure, got " + cause);
            assertEquals(KeeperException.Code.CONNECTIONLOSS, ((LockCoordinationException) cause).code());
            assertFalse(lock.isAcquiredInThisProcess());

            // The orphan is removed from inside the still-living session, not by its expiry.
            ZkTestSupport.eventually("orphan node reaped", () -> children(path).isEmpty());
            assertEquals(session, lockClient.getZookeeperClient().getZooKeeper().getSessionId(), "the session survived");
            assertTrue(contender.acquire(ZkTestSupport.WAIT).isPresent(), "the lock is not blocked by the orphan");
            contender.release();
        }
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void lostReleaseReplyIsNeverRetriedOntoTheNextHoldersNode(Variant kind) throws Exception {
        // The release's delete executes, its reply is lost, the next holder creates its node (for TAS: same name,
        // same data version), and only then does the releasing client learn of the connection loss and retry.
        String path = "/lost-release-reply/" + kind;
        CuratorFramework lockClient = zk.newClient(proxy.connectString(), new RetryNTimes(20, 100));
        try (Locks.Any lock = Locks.create(kind, lockClient, path); Locks.Any next = Locks.create(kind, observer, path)) {
            LockHandle first = lock.acquire();
            proxy.dropReplies(true);
            CompletableFuture<Void> releasing = new CompletableFuture<>();
            Thread releaser = new Thread(() -> {
                try {
                    lock.release();
                    releasing.complete(null);
                } catch (Throwable t) {
                    releasing.completeExceptionally(t);
                }
            }, "releaser-" + kind);
            releaser.setDaemon(true);
            releaser.start();
            ZkTestSupport.eventually("release executed on the server", () -> !children(path).contains(name(first)));
            LockHandle second = next.acquire();

            proxy.dropReplies(false);
            proxy.cutConnections();
            try {
                releasing.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                // A release not confirmed in time reports it; what matters is what happens to the next holder's node.
                assertTrue(e.getCause() instanceof LockCoordinationException, "typed, got " + e.getCause());
            }
            // Whatever the retry did, it has done it by the time the old session's client is connected again and its
            // release has returned; the next holder must be untouched.
            assertTrue(lockClient.blockUntilConnected((int) ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS));
            CuratorFramework check = zk.newClient();
            ZkTestSupport.eventually("the releasing client's retry has run",
                    () -> lockClient.getZookeeperClient().isConnected() && releasing.isDone());
            Stat secondNode = check.checkExists().forPath(second.nodePath());
            assertTrue(secondNode != null && secondNode.getCzxid() == second.fencingToken(), "the next holder's node survives");
            assertTrue(second.isValid());
            next.release();
        }
    }

    private static String name(LockHandle hold) {
        return hold.nodePath().substring(hold.nodePath().lastIndexOf('/') + 1);
    }

    @ParameterizedTest
    @EnumSource(value = Variant.class, names = {"ASYNC_QUEUE", "ASYNC_TAS", "ASYNC_TAS_POLL", "ASYNC_QUEUE_POLL"})
    void cancellingWhileTheCreateReplyIsLostLeavesNothingBehind(Variant kind) throws Exception {
        String path = "/lost-reply-cancel/" + kind;
        CuratorFramework lockClient = zk.newClient(proxy.connectString(), new RetryNTimes(20, 100));
        AsyncLock lock = kind.asyncLock(lockClient, path);
        try (lock; Locks.Any contender = Locks.create(kind, observer, path)) {
            observer.create().creatingParentsIfNeeded().forPath(path);
            proxy.dropReplies(true);
            CompletableFuture<LockHandle> pending = lock.acquireAsync().toCompletableFuture();
            ZkTestSupport.eventually("create executed on the server", () -> !children(path).isEmpty());
            // Give up while the create's outcome is unknown to the client, then let the reply (or Curator's retry) come.
            pending.cancel(false);
            proxy.dropReplies(false);
            proxy.cutConnections();

            ZkTestSupport.eventually("the cancelled attempt's node is gone", () -> children(path).isEmpty());
            assertFalse(lock.isAcquiredInThisProcess());
            assertTrue(contender.acquire(ZkTestSupport.WAIT).isPresent(), "the lock is free");
            contender.release();
            LockHandle later = Locks.await(lock.acquireAsync().toCompletableFuture());
            assertTrue(later.isValid(), "the lock object works after the cancelled attempt");
            Locks.await(lock.releaseAsync().toCompletableFuture());
        }
    }

    /** Starts an acquisition whose create reaches the server while the reply is swallowed, then cuts the line. */
    private CompletableFuture<LockHandle> acquireWithLostReply(Locks.Any lock, String path, Variant kind) throws Exception {
        // The lock path exists beforehand, so that the very first request of the acquisition is the create itself.
        observer.create().creatingParentsIfNeeded().forPath(path);
        proxy.dropReplies(true);
        CompletableFuture<LockHandle> acquiring = new CompletableFuture<>();
        Thread acquirer = new Thread(() -> {
            try {
                acquiring.complete(lock.acquire());
            } catch (Throwable t) {
                acquiring.completeExceptionally(t);
            }
        }, "acquirer-" + kind);
        acquirer.setDaemon(true);
        acquirer.start();
        ZkTestSupport.eventually("create executed on the server", () -> !children(path).isEmpty());
        assertFalse(acquiring.isDone(), "the reply was swallowed");
        proxy.dropReplies(false);
        proxy.cutConnections();
        return acquiring;
    }

    private static boolean isQueue(Variant kind) {
        return kind.isQueue();
    }

    private List<String> children(String path) {
        try {
            return observer.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
