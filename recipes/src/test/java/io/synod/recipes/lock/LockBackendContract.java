package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

/**
 * What the lock algorithms rely on from a {@link LockBackend}, checked against a real service: a subclass supplies
 * two backends with separate sessions. The ZooKeeper backend runs it ({@link ZooKeeperLockBackendTest}); a Synod
 * backend must pass the same.
 */
abstract class LockBackendContract {

    /** A backend with a session of its own (a fresh one per call). */
    abstract LockBackend newBackend() throws Exception;

    /** Ends the session of {@code backend} on the server, as an expiry does. */
    abstract void expireSession(LockBackend backend) throws Exception;

    private static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void ephemeralKeysCarryTokenOwnerAndData() throws Exception {
        LockBackend a = newBackend();
        LockBackend b = newBackend();
        String key = a.child("/contract/tas", "holder");
        LockBackend.Reply created = get(a.createRetrying(key, bytes("attempt-1"), false));
        assertEquals(Code.OK, created.code());
        assertEquals(key, created.key());
        assertTrue(created.entry().isOwnedBy(a.sessionId()));
        assertEquals(Code.NODEEXISTS, get(b.create(key, bytes("attempt-2"), false)).code());
        LockBackend.Reply read = get(b.read(key));
        assertEquals(created.entry(), read.entry());
        assertArrayEquals(bytes("attempt-1"), read.data());
        assertTrue(!read.entry().isOwnedBy(b.sessionId()));
        assertEquals(read.sessionId(), b.sessionId(), "a single request names the session it went out on");
    }

    @Test
    void sequentialKeysOfDifferentNamesShareTheParentsOrder() throws Exception {
        LockBackend a = newBackend();
        LockBackend b = newBackend();
        String parent = "/contract/queue";
        LockBackend.Reply first = get(a.createRetrying(a.child(parent, QueueNodes.namePrefix("one")), new byte[0], true));
        LockBackend.Reply second = get(b.create(b.child(parent, QueueNodes.namePrefix("two")), new byte[0], true));
        assertEquals(Code.OK, second.code());
        assertTrue(second.key().startsWith(parent + "/" + QueueNodes.namePrefix("two")), second.key());
        assertTrue(second.entry().token() > first.entry().token(), "tokens grow in creation order");
        List<String> children = get(a.listRetrying(parent)).children();
        assertEquals(2, children.size());
        QueueNodes.View view = QueueNodes.view(children, a.nameOf(first.key()), "one");
        assertTrue(view.oursIsFirst(), "the first created sorts first: " + children);
        assertEquals(children, get(b.list(parent)).children());
    }

    @Test
    void deletesArePinnedToTheOwningSessionAndChecked() throws Exception {
        LockBackend a = newBackend();
        LockBackend b = newBackend();
        String key = a.child("/contract/delete", "holder");
        LockBackend.Reply mine = get(a.createRetrying(key, bytes("x"), false));
        // A delete pinned to a session that is not the backend's current one sends nothing: only the owner's backend,
        // while its session lives, can delete through it.
        get(b.deleteOwned("/contract/delete", key, a.sessionId(), mine.entry().token()));
        assertEquals(Code.OK, get(a.exists(key)).code());
        get(a.deleteOwned("/contract/delete", key, a.sessionId(), mine.entry().token()));
        assertEquals(Code.NONODE, get(a.exists(key)).code());
        LockBackend.Reply next = get(b.createRetrying(key, bytes("y"), false));
        assertNotEquals(mine.entry().token(), next.entry().token());
        get(b.deleteOwnedIfData("/contract/delete", key, bytes("not-y")));
        assertEquals(Code.OK, get(b.exists(key)).code(), "data differs: not deleted");
        get(b.deleteOwnedIfData("/contract/delete", key, bytes("y")));
        assertEquals(Code.NONODE, get(b.exists(key)).code());
    }

    @Test
    void aWatchReportsTheDeletionAndASessionEndDeletesItsKeys() throws Exception {
        LockBackend a = newBackend();
        LockBackend b = newBackend();
        String key = a.child("/contract/watch", "holder");
        get(a.createRetrying(key, bytes("x"), false));
        LinkedBlockingQueue<LockBackend.WatchEvent> events = new LinkedBlockingQueue<>();
        assertEquals(Code.OK, get(b.existsAndWatch(key, events::add)).code());
        LinkedBlockingQueue<LockBackend.SessionEvent> sessionEvents = new LinkedBlockingQueue<>();
        try (LockBackend.Registration ignored = a.onSessionEvent(sessionEvents::add)) {
            expireSession(a);
            assertEquals(LockBackend.WatchEvent.DELETED, events.poll(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS),
                    "the ephemeral key goes with its session, and the watcher hears of it");
            assertEquals(Code.NONODE, get(b.read(key)).code());
            LockBackend.SessionEvent seen;
            do {
                seen = sessionEvents.poll(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
            } while (seen != null && seen != LockBackend.SessionEvent.LOST);
            assertEquals(LockBackend.SessionEvent.LOST, seen, "the expired session's owner is told");
        }
        LinkedBlockingQueue<LockBackend.WatchEvent> absent = new LinkedBlockingQueue<>();
        assertEquals(Code.NONODE, get(b.existsAndWatch(key, absent::add)).code());
        get(b.createRetrying(key, bytes("z"), false));
        assertEquals(LockBackend.WatchEvent.CHANGED, absent.poll(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS),
                "a watch on an absent key fires on its creation");
    }

    @Test
    void connectionLossPacingFollowsTheRetryPolicy() throws Exception {
        LockBackend a = newBackend();
        assertTrue(a.connectionLossPauseNanos(0, 0) >= 0, "the first retry is allowed");
        assertEquals(-1, a.connectionLossPauseNanos(1_000, 0), "the policy gives up eventually");
        assertTrue(a.sessionTimeoutMillis() > 0);
    }
}
