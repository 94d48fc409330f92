package io.synod.recipes.lock;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Synchronous queue lock: the straightforward blocking algorithm of the ZooKeeper lock recipe.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>Create an ephemeral-sequential child {@code <lockPath>/_c_<attempt-uuid>-lock-<seq>} (parents are
 *       created as containers when missing).</li>
 *   <li>List the children. If ours has the lowest sequence, the lock is held.</li>
 *   <li>Otherwise set a watch on the child just before ours (only that one: no herd effect) and block until it
 *       fires, then go to step 2. If the predecessor is already gone, go to step 2 at once.</li>
 * </ol>
 * Release deletes our child, which wakes exactly the next waiter.
 *
 * <p><b>Cost.</b> Uncontended: 2 RTTs (create, list). Contended: 2 RTTs to join the queue, 1 more to watch the
 * predecessor, then per wake-up 1 RTT to list plus possibly 1 to watch again (a predecessor that gave up rather
 * than released makes its successor re-watch). Release: 1 RTT. The calling thread blocks throughout.
 *
 * <p><b>Fairness.</b> FIFO in order of creation of the queue nodes.
 *
 * <p><b>Failures.</b> A create whose reply was lost (connection loss) is recognised by the attempt's protected
 * name: a node Curator created again on retry is deleted as a stray, and when the create failed outright, every
 * node of the attempt is removed in the background. The lock is granted only on a children listing answered in
 * the session that owns our node (CURATOR-604: a new session can still see the old session's nodes). A waiter whose
 * node went with its session joins the queue again in the new session (or fails fast, see {@link LockOptions}).
 * A create that finds its container parent reaped creates it again. See
 * {@link LockHandle} for fencing and {@link LockOptions} and {@link LockLossReason} for loss.
 */
public final class QueueLock extends SyncLockBase {

    QueueLock(LockBackend backend, String lockPath, LockOptions options) {
        super(backend, lockPath, options);
    }

    @Override
    Optional<LockHandle> acquireUntil(boolean timed, long deadlineNanos) throws LockException {
        SyncAttempt attempt = new SyncAttempt();
        beginAcquire(attempt, attempt::wake);
        String attemptId = null;
        String ourPath = null;
        long ourSession = 0;
        boolean strayDuplicatesHandled = false;
        boolean granted = false;
        int requeues = 0;
        try {
            while (true) { // once per place in the queue (see LockOptions: re-queueing after session loss)
                attemptId = UUID.randomUUID().toString();
                ourPath = null;
                strayDuplicatesHandled = false;
                attempt.checkNotAbandoned(this);
                LockBackend.Reply created = createRetryingMissingParent(backend.child(lockPath, QueueNodes.namePrefix(attemptId)), true, null);
                if (created.code() != Code.OK) {
                    throw KeeperException.create(created.code());
                }
                ourPath = created.key();
                LockBackend.Entry ourEntry = created.entry();
                ourSession = ourEntry.ownerSession();
                String ourName = backend.nameOf(ourPath);
                String lostPlace = null;
                while (lostPlace == null) {
                    // Signal first, then the check: a close() after the check is sure to wake this signal.
                    WakeSignal signal = attempt.newSignal();
                    attempt.checkNotAbandoned(this);
                    LockBackend.Reply listing = backend.listRetryingBlocking(lockPath);
                    if (listing.code() == Code.NONODE || listing.code() == Code.SESSIONEXPIRED) {
                        lostPlace = "our queue node " + ourPath + " is gone (" + listing.code() + ")";
                        continue;
                    } else if (listing.code() != Code.OK) {
                        throw KeeperException.create(listing.code());
                    }
                    List<String> children = listing.children();
                    if (backend.sessionId() != ourSession) {
                        lostPlace = "session changed while queued; our node " + ourPath + " is gone";
                        continue;
                    }
                    QueueNodes.View queue = QueueNodes.view(children, ourName, attemptId);
                    for (String stray : queue.strayDuplicates) {
                        deleteStray(backend.child(lockPath, stray), ourSession);
                    }
                    strayDuplicatesHandled = true;
                    if (!queue.containsOurs()) {
                        lostPlace = "our queue node " + ourPath + " disappeared while queued";
                        continue;
                    }
                    if (queue.oursIsFirst()) {
                        Hold hold = grant(attempt, ourPath, ourEntry);
                        if (hold == null) {
                            throw attempt.abandoned(this);
                        }
                        granted = true;
                        return Optional.of(hold);
                    }
                    LockBackend.Reply predecessor = backend.existsAndWatchBlocking(backend.child(lockPath, queue.predecessor()), signal);
                    if (predecessor.code() != Code.OK && predecessor.code() != Code.NONODE) {
                        throw KeeperException.create(predecessor.code());
                    }
                    boolean woken = predecessor.code() == Code.NONODE ? !isPast(timed, deadlineNanos) : signal.await(timed, deadlineNanos);
                    if (!woken) {
                        return Optional.empty();
                    }
                }
                if (!mayRequeue(++requeues)) {
                    throw new LockSessionLostException(lockPath, lostPlace);
                }
                deleteLostPlace(ourPath, ourSession);
                if (isPast(timed, deadlineNanos)) {
                    ourPath = null;
                    attemptId = null;
                    return Optional.empty();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockCancelledException(lockPath, "interrupted while acquiring", e);
        } catch (Exception e) {
            throw translate("queue lock acquisition", e);
        } finally {
            if (!granted) {
                endAcquire(attempt);
                if (ourPath != null && strayDuplicatesHandled) {
                    deleteStray(ourPath, ourSession);
                } else if (attemptId != null) {
                    SyncSupport.logIfFailed(backend.deleteOwnedChildren(lockPath, QueueNodes.namePrefix(attemptId)), lockPath);
                }
            }
        }
    }

    private void deleteStray(String nodePath, long session) {
        SyncSupport.logIfFailed(backend.deleteOwned(lockPath, nodePath, session, LockBackend.ANY_TOKEN), lockPath);
    }
}
