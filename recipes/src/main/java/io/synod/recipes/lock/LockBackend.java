package io.synod.recipes.lock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;

/**
 * The coordination primitives the lock algorithms are written against, once, for every backend: ephemeral and
 * ephemeral-sequential keys owned by a client session, reads of one key and of a parent's children, one-shot
 * watches on a key, a delete pinned to the owning session with a version (fencing token) check, and the session's
 * state. {@link ZooKeeperLockBackend} implements it with Curator; a Synod backend implements it with sessions,
 * ephemeral and sequential keys, watches and write slots of the key-value service (see docs/recipes.md).
 *
 * <p><b>Keys</b> are '/'-separated paths; a lock lives under its lock path, and the lock's nodes are the lock path's
 * children. <b>Tokens</b>: every key carries the position in the service's total write order of the write that
 * created it (ZooKeeper's czxid, Synod's slot); tokens only grow, which makes them fencing tokens.
 *
 * <p><b>Outcomes</b> use ZooKeeper's result codes as the vocabulary ({@link Code}: OK, NODEEXISTS, NONODE,
 * CONNECTIONLOSS and OPERATIONTIMEOUT for an unknown outcome, SESSIONEXPIRED and SESSIONMOVED for a session that
 * ended, anything else a refusal); a backend maps its own errors onto them. The locks' public
 * {@link LockCoordinationException#code()} reports the same codes.
 *
 * <p>Two kinds of request:
 * <ul>
 *   <li><b>Single requests</b> ({@link #create}, {@link #read}, {@link #exists}, {@link #list}): sent once on the
 *       current session, no hidden retries. Each gets its server's answer or an unknown outcome (CONNECTIONLOSS),
 *       and the requests of one session are executed and answered in the order they were issued. The RETRY and POLL
 *       strategies reason with both facts; a backend must guarantee them.</li>
 *   <li><b>Retrying requests</b> ({@link #createRetrying}, {@link #readAndWatch}, {@link #existsAndWatch},
 *       {@link #listRetrying} and their blocking forms): retried by the backend's policy on connection loss. A
 *       create retried after an unknown outcome may have executed twice; the locks recognise the duplicate by the
 *       attempt id in the key or data. Parents of a created key are created when missing.</li>
 * </ul>
 * Futures complete exceptionally only for a local refusal (closed client, bad key); a server's answer, good or bad,
 * is a {@link Reply}. Callbacks run on the backend's event thread and must not block.
 */
public interface LockBackend {

    /** Pass as the expected token of {@link #deleteOwned} for keys whose unique names need no identity check. */
    long ANY_TOKEN = -1;

    /** What a key carries besides its data: the fencing token of the write that created it, and its owner session. */
    record Entry(long token, long ownerSession) {
        /** Whether {@code sessionId} (not 0: no session) owns this key. */
        public boolean isOwnedBy(long sessionId) {
            return sessionId != 0 && ownerSession == sessionId;
        }
    }

    /**
     * One answer. {@code sessionId}: the session a single request went out on (0 if it never went out, or for
     * retrying requests). {@code key}: the created key (sequential keys: with the sequence the service assigned).
     */
    record Reply(Code code, long sessionId, String key, Entry entry, byte[] data, List<String> children) {
        public static Reply of(Code code, long sessionId) {
            return new Reply(code, sessionId, null, null, null, List.of());
        }
    }

    /** Session state as the locks need it. */
    enum SessionEvent {
        /** The connection is interrupted; the session may or may not be alive. */
        SUSPENDED,
        /** Connected (again); the session may be a new one ({@link #sessionId()} says). */
        CONNECTED,
        /** The session ended (expired, closed, or given up on). */
        LOST
    }

    /** What a one-shot watch reports. Connection notices that do not end the watch are not delivered. */
    enum WatchEvent {
        /** The key was created or its data changed. */
        CHANGED,
        /** The key was deleted. */
        DELETED,
        /** The session that set the watch ended; the watch is gone with it. */
        SESSION_ENDED
    }

    /** Registration of a listener; closing it removes the listener. */
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    // --- session

    /** The current session's id, or 0 when there is none (never connected, closed, or unknown right now). */
    long sessionId();

    /** The session timeout in force (negotiated, or requested before the first connection). */
    long sessionTimeoutMillis();

    /** Session state changes, on the backend's event thread. */
    Registration onSessionEvent(Consumer<SessionEvent> listener);

    /**
     * The pause before the next single request after {@code count} consecutive connection losses over
     * {@code elapsedMillis}, or -1 when the client's retry policy gives up (or the client is closed).
     */
    long connectionLossPauseNanos(int count, long elapsedMillis);

    /** The object the client's connection is: what adaptive locks of one client share their round trip under. */
    Object connectionIdentity();

    // --- single requests on the current session

    /** Creates an ephemeral key of the current session ({@code sequential}: with a per-parent sequence appended). */
    CompletableFuture<Reply> create(String key, byte[] data, boolean sequential);

    /** Reads a key's data and entry. */
    CompletableFuture<Reply> read(String key);

    /** Reads a key's entry. */
    CompletableFuture<Reply> exists(String key);

    /** Lists a key's children (names, without the parent). */
    CompletableFuture<Reply> list(String parent);

    // --- retrying requests

    /** As {@link #create}, retried by the backend's policy, creating missing parents. {@code data} null: the backend's default. */
    CompletableFuture<Reply> createRetrying(String key, byte[] data, boolean sequential);

    /** Blocking form of {@link #createRetrying}. */
    Reply createRetryingBlocking(String key, byte[] data, boolean sequential) throws Exception;

    /** Creates the lock path (a parent of lock nodes), retried; an existing one is fine. */
    CompletableFuture<Reply> ensureParent(String key);

    /** Reads a key's data and entry and leaves a one-shot watch on it (if it exists). */
    CompletableFuture<Reply> readAndWatch(String key, Consumer<WatchEvent> watch);

    /** Blocking form of {@link #readAndWatch}. */
    Reply readAndWatchBlocking(String key, Consumer<WatchEvent> watch) throws Exception;

    /** Reads a key's entry and leaves a one-shot watch on it (also when it does not exist: its creation fires it). */
    CompletableFuture<Reply> existsAndWatch(String key, Consumer<WatchEvent> watch);

    /** Blocking form of {@link #existsAndWatch}. */
    Reply existsAndWatchBlocking(String key, Consumer<WatchEvent> watch) throws Exception;

    /** Lists a key's children, retried. */
    CompletableFuture<Reply> listRetrying(String parent);

    /** Blocking form of {@link #listRetrying}. */
    Reply listRetryingBlocking(String parent) throws Exception;

    // --- deletes pinned to the owning session

    /**
     * Deletes a key of session {@code sessionId}, created at {@code token} ({@link #ANY_TOKEN}: any). Sent only while
     * that session is the client's (a key never outlives its session, so once it ended there is nothing to do); a
     * retry after an unknown outcome first checks that the key is still the one created at {@code token}. Completes
     * when the key is gone or its session ended; fails with {@link LockCoordinationException} when refused or the
     * retry budget ran out.
     */
    CompletableFuture<Void> deleteOwned(String lockPath, String key, long sessionId, long token);

    /** Deletes, in the current session, every child of {@code lockPath} whose name starts with {@code namePrefix}. */
    CompletableFuture<Void> deleteOwnedChildren(String lockPath, String namePrefix);

    /** Deletes {@code key} if the current session owns it and its data equals {@code data}. */
    CompletableFuture<Void> deleteOwnedIfData(String lockPath, String key, byte[] data);

    // --- key names

    /** {@code parent + "/" + name}, normalised. */
    String child(String parent, String name);

    /** The last segment of a key. */
    String nameOf(String key);

    /** Checks a lock path's syntax; returns it, or throws {@link IllegalArgumentException}. */
    String validate(String lockPath);
}
