package io.synod.recipes.lock;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the four locks share: the lock object's life cycle (idle, acquiring, holding, closed), the hold, and the
 * watch over it. A hold is declared lost when its session is reported LOST or replaced, when the connection
 * stays SUSPENDED longer than the bound, or when its node disappears; whichever is first. Written against
 * {@link LockBackend}'s primitives, so the same code runs on every backend.
 */
abstract class LockBase {

    private static final Logger LOG = LoggerFactory.getLogger(LockBase.class);

    final LockBackend backend;
    final String lockPath;
    final LockOptions options;
    private final LockBackend.Registration sessionListener;

    // All guarded by "this".
    private Object currentAttempt;
    private Wakeup attemptWakeup;
    private Hold hold;
    private boolean everAcquired;
    private boolean closed;
    private boolean connectionSuspended;
    private ScheduledFuture<?> suspendedTimer;
    /** Whether the latest acquisition found the lock taken (its first try was refused); read by the adaptive lock. */
    private volatile boolean latestFoundTaken;

    LockBase(LockBackend backend, String lockPath, LockOptions options) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.lockPath = backend.validate(lockPath);
        this.options = Objects.requireNonNull(options, "options");
        this.sessionListener = backend.onSessionEvent(this::sessionEvent);
    }

    /** How the lock tells an acquisition in progress to look at the world again. */
    @FunctionalInterface
    interface Wakeup {
        /**
         * Called on session events (LOST, a new connection) with {@code lockClosed == false}, and on close with
         * {@code true}. Must not block. May race with the attempt's own grant, and must then do nothing harmful.
         */
        void wake(boolean lockClosed);
    }

    /** Marks an acquisition as started. */
    final synchronized void beginAcquire(Object attempt, Wakeup wakeup) throws LockStateException {
        if (closed) {
            throw new LockStateException(lockPath, "lock is closed");
        }
        if (hold != null && hold.isValid()) {
            throw new LockStateException(lockPath, "already held by this lock object (locks are not reentrant): " + hold.nodePath());
        }
        if (currentAttempt != null) {
            throw new LockStateException(lockPath, "an acquisition by this lock object is already in progress");
        }
        currentAttempt = attempt;
        attemptWakeup = wakeup;
        latestFoundTaken = false;
    }

    /** An acquisition's try was refused: the lock was taken. */
    final void noteFoundTaken() {
        latestFoundTaken = true;
    }

    /** Whether the latest acquisition found the lock taken at least once. */
    final boolean latestFoundTaken() {
        return latestFoundTaken;
    }

    /** Marks an acquisition as over without a grant. */
    final synchronized void endAcquire(Object attempt) {
        if (currentAttempt == attempt) {
            currentAttempt = null;
            attemptWakeup = null;
        }
    }

    /** {@code true} while {@code attempt} is the lock's acquisition and the lock is open. */
    final synchronized boolean isCurrent(Object attempt) {
        return !closed && currentAttempt == attempt;
    }

    /**
     * Turns the attempt's node into the hold. Returns {@code null} if the attempt was abandoned meanwhile (closed,
     * cancelled): the caller then still owns the node and must delete it.
     */
    final Hold grant(Object attempt, String nodePath, LockBackend.Entry node) {
        Hold granted = new Hold(lockPath, nodePath, node.token(), node.ownerSession());
        synchronized (this) {
            if (closed || currentAttempt != attempt) {
                return null;
            }
            currentAttempt = null;
            attemptWakeup = null;
            hold = granted;
            everAcquired = true;
            if (connectionSuspended) {
                // The SUSPENDED event came before this hold existed; the bound starts now, the safe side of then.
                armSuspendedTimer();
            }
        }
        watchHoldNode(granted);
        return granted;
    }

    /**
     * Takes the hold away for release. Returns the hold whose node must be deleted, or {@code null} when there is
     * nothing to do (released before, or lost: a lost hold's node is already taken care of).
     */
    final synchronized Hold takeHoldForRelease() throws LockStateException {
        if (!everAcquired) {
            throw new LockStateException(lockPath, "release of a lock this lock object has never acquired");
        }
        Hold current = hold;
        hold = null;
        cancelSuspendedTimer();
        if (current != null && current.markReleased()) {
            return current;
        }
        return null;
    }

    /**
     * {@code release()} of the blocking locks: takes the hold and waits (bounded, see {@link SyncSupport#await}) for
     * its node to be deleted. Releasing what is already released or lost does nothing.
     */
    final void releaseAndAwaitDelete() throws Exception {
        Hold released = takeHoldForRelease();
        if (released != null) {
            SyncSupport.await(deleteNode(released), this);
        }
    }

    /** {@code releaseAsync()} of the asynchronous locks: as {@link #releaseAndAwaitDelete()}, without blocking. */
    final CompletableFuture<Void> releaseWithoutBlocking() {
        Hold released;
        try {
            released = takeHoldForRelease();
        } catch (LockStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        return released == null ? CompletableFuture.completedFuture(null) : deleteNode(released);
    }

    /** Releases a hold that was granted to an attempt nobody waits for any more (cancelled concurrently). */
    final void releaseOrphanedGrant(Hold granted) {
        synchronized (this) {
            if (hold == granted) {
                hold = null;
                cancelSuspendedTimer();
            }
        }
        if (granted.markReleased()) {
            deleteNode(granted).whenComplete((ignored, error) -> logCleanupFailure(granted.nodePath(), error));
        }
    }

    /** Deletes the node of a hold, pinned to the hold's session, checking its token (see {@link LockBackend#deleteOwned}). */
    final CompletableFuture<Void> deleteNode(Hold of) {
        return backend.deleteOwned(lockPath, of.nodePath(), of.sessionId(), of.fencingToken());
    }

    public final boolean isAcquiredInThisProcess() {
        Hold current;
        synchronized (this) {
            current = hold;
        }
        return current != null && current.isValid();
    }

    /** Closes the lock: abandons an acquisition, releases a hold without waiting, stops watching. */
    public final void close() {
        Wakeup wakeup;
        Hold toRelease;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            wakeup = attemptWakeup;
            toRelease = hold;
            hold = null;
            cancelSuspendedTimer();
        }
        sessionListener.close();
        if (wakeup != null) {
            wakeup.wake(true);
        }
        if (toRelease != null && toRelease.markReleased()) {
            deleteNode(toRelease).whenComplete((ignored, error) -> logCleanupFailure(toRelease.nodePath(), error));
        }
    }

    private void sessionEvent(LockBackend.SessionEvent state) {
        Hold lostHold = null;
        LockLossReason reason = null;
        Wakeup wakeup;
        synchronized (this) {
            switch (state) {
                case SUSPENDED -> {
                    connectionSuspended = true;
                    if (hold != null && hold.isValid() && suspendedTimer == null) {
                        armSuspendedTimer();
                    }
                }
                case CONNECTED -> {
                    connectionSuspended = false;
                    cancelSuspendedTimer();
                    if (hold != null && hold.isValid() && backend.sessionId() != hold.sessionId()) {
                        lostHold = hold;
                        reason = LockLossReason.SESSION_LOST;
                    }
                }
                case LOST -> {
                    connectionSuspended = true;
                    cancelSuspendedTimer();
                    if (hold != null && hold.isValid()) {
                        lostHold = hold;
                        reason = LockLossReason.SESSION_LOST;
                    }
                }
                default -> { }
            }
            wakeup = attemptWakeup;
        }
        if (lostHold != null) {
            declareLost(lostHold, reason);
        }
        if (wakeup != null && state != LockBackend.SessionEvent.SUSPENDED) {
            // LOST or a new connection: a waiting acquisition must re-check that its node and session still stand.
            wakeup.wake(false);
        }
    }

    /** Guarded by "this". */
    private void armSuspendedTimer() {
        Hold watched = hold;
        long boundNanos = options.effectiveSuspendedLostBound(backend.sessionTimeoutMillis()).toNanos();
        suspendedTimer = LockScheduler.schedule(() -> {
            boolean stillSuspended;
            synchronized (this) {
                stillSuspended = connectionSuspended && hold == watched;
                suspendedTimer = null;
            }
            if (stillSuspended) {
                declareLost(watched, LockLossReason.SESSION_SUSPENDED_TOO_LONG);
            }
        }, boundNanos);
    }

    /** Guarded by "this". */
    private void cancelSuspendedTimer() {
        if (suspendedTimer != null) {
            suspendedTimer.cancel(false);
            suspendedTimer = null;
        }
    }

    /**
     * Ends a hold as lost. After a long suspension the session may still be alive, and with it the node: it is
     * deleted (pinned to its session), so that a hold nobody believes in does not block the others until the
     * session expires. After SESSION_LOST or NODE_DELETED the node is already gone, and nothing is deleted: for the
     * test-and-set lock, whose node name is fixed, a delete now could only hit the next holder's node.
     */
    final void declareLost(Hold lostHold, LockLossReason reason) {
        LockLossReason actual = reason;
        if (reason == LockLossReason.NODE_DELETED && backend.sessionId() != lostHold.sessionId()) {
            actual = LockLossReason.SESSION_LOST; // the node went with its session
        }
        if (lostHold.markLost(actual)) {
            LOG.warn("lock hold lost ({}): {}", actual, lostHold);
            synchronized (this) {
                if (hold == lostHold) {
                    cancelSuspendedTimer();
                }
            }
            if (actual == LockLossReason.SESSION_SUSPENDED_TOO_LONG) {
                deleteNode(lostHold).whenComplete((ignored, error) -> logCleanupFailure(lostHold.nodePath(), error));
            }
        }
    }

    /** Watches the hold's node, so that its deletion by anyone but us ends the hold. */
    private void watchHoldNode(Hold watched) {
        backend.existsAndWatch(watched.nodePath(), event -> {
            if (!watched.isValid()) {
                return;
            }
            switch (event) {
                case DELETED -> declareLost(watched, LockLossReason.NODE_DELETED);
                // The session ended, or the client was closed under the hold: either way the session and its node are gone.
                case SESSION_ENDED -> declareLost(watched, LockLossReason.SESSION_LOST);
                case CHANGED -> watchHoldNode(watched); // a data change fired the one-shot watch: watch again
            }
        }).whenComplete((reply, error) -> {
            if (error != null) {
                LOG.warn("could not watch lock node {}: {}", watched.nodePath(), error.toString());
            } else if (reply.code() == KeeperException.Code.NONODE) {
                declareLost(watched, LockLossReason.NODE_DELETED);
            } else if (reply.code() != KeeperException.Code.OK) {
                LOG.warn("could not watch lock node {}: {}", watched.nodePath(), reply.code());
            }
        });
    }

    private static void logCleanupFailure(String nodePath, Throwable error) {
        if (error != null) {
            LOG.warn("deletion of lock node {} failed: {}", nodePath, error.toString());
        }
    }

    /**
     * A blocking create (retrying, parents created when missing). A backend whose parents are containers may reap an
     * empty one between creating it and the create itself (NoNode); as Curator's {@code InterProcessMutex} does, the
     * create is tried again, at most {@link #MAX_MISSING_PARENT} times in a row. {@code data} null means the backend's
     * default data. Returns the final reply (NONODE after too many misses).
     */
    final LockBackend.Reply createRetryingMissingParent(String key, boolean sequential, byte[] data) throws Exception {
        for (int misses = 0; ; misses++) {
            LockBackend.Reply reply = backend.createRetryingBlocking(key, data, sequential);
            if (reply.code() != KeeperException.Code.NONODE || misses >= MAX_MISSING_PARENT) {
                return reply;
            }
        }
    }

    /** Whether a queued waiter that lost its place for the {@code requeues}-th time joins again (see {@link LockOptions}). */
    final boolean mayRequeue(int requeues) {
        return options.requeueOnSessionLoss() && requeues <= LockOptions.MAX_REQUEUES;
    }

    /** Our lost place's node: normally gone with its session; if the session lives on, it must not stay queued. */
    final void deleteLostPlace(String nodePath, long sessionId) {
        SyncSupport.logIfFailed(backend.deleteOwned(lockPath, nodePath, sessionId, LockBackend.ANY_TOKEN), lockPath);
    }

    /** Bound on creates in a row that find the parent missing (container reaped under us). */
    static final int MAX_MISSING_PARENT = 64;

    /** For timed acquisitions: has the deadline (a {@link System#nanoTime()} value) passed? */
    static boolean isPast(boolean timed, long deadlineNanos) {
        return timed && System.nanoTime() - deadlineNanos >= 0;
    }

    /** The typed form of a failure of a ZooKeeper operation during acquisition. */
    final LockException translate(String step, Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof LockException lockException) {
            return lockException;
        }
        if (cause instanceof KeeperException keeperException) {
            return translate(step, keeperException.code(), keeperException);
        }
        if (cause instanceof InterruptedException) {
            return new LockCancelledException(lockPath, step + " interrupted", cause);
        }
        return new LockCoordinationException(lockPath, step + " failed: " + cause, KeeperException.Code.SYSTEMERROR, cause);
    }

    final LockException translate(String step, KeeperException.Code code, Throwable cause) {
        if (code == KeeperException.Code.SESSIONEXPIRED) {
            return new LockSessionLostException(lockPath, step + ": session expired");
        }
        return new LockCoordinationException(lockPath, step + " failed", code, cause);
    }

    static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }
}
