package io.synod.recipes.lock;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.UUID;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Synchronous test-and-set lock: the straightforward blocking algorithm.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>Create the ephemeral node {@code <lockPath>/holder} holding this attempt's id. Success: the lock is
 *       held.</li>
 *   <li>On NodeExists, read the node with a watch. If it belongs to our session and carries our attempt id,
 *       it is ours: an earlier try of our create succeeded on the server but its reply was lost, and Curator
 *       retried. Otherwise block until the watch fires (the holder released), then go to step 1. If the node is
 *       already gone, go to step 1 at once.</li>
 * </ol>
 *
 * <p><b>Cost.</b> Uncontended: 1 RTT. Contended: 2 RTTs per try (create, then read with watch), and every
 * waiter retries on every release (herd effect: n waiters cost n creates per release, only one succeeds).
 * Release: 1 RTT. The calling thread blocks throughout, which is why this lock degrades most at high RTT.
 *
 * <p><b>Fairness.</b> None: whoever's create reaches the leader first after a release wins; a waiter can starve.
 *
 * <p><b>Failures.</b> The node name is fixed, so deleting it on behalf of a dead session could delete the next
 * holder's node; releases and clean-ups therefore run pinned to the owning session (see {@link NodeReaper}). A
 * create that failed outright (connection loss beyond Curator's retries) is followed by a background clean-up
 * that deletes the node only if it carries this attempt's id in this session. See {@link LockHandle} for
 * fencing and {@link LockOptions} and {@link LockLossReason} for loss.
 */
public final class TasLock extends SyncLockBase {

    /** The name of the test-and-set node under the lock path. */
    static final String HOLDER_NODE = "holder";

    private final String holderPath;

    TasLock(LockBackend backend, String lockPath, LockOptions options) {
        super(backend, lockPath, options);
        this.holderPath = backend.child(lockPath, HOLDER_NODE);
    }

    @Override
    Optional<LockHandle> acquireUntil(boolean timed, long deadlineNanos) throws LockException {
        SyncAttempt attempt = new SyncAttempt();
        beginAcquire(attempt, attempt::wake);
        byte[] attemptData = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);
        boolean mayOwnNode = false;
        boolean granted = false;
        try {
            while (true) {
                // Signal first, then the check: a close() after the check is sure to wake this signal.
                WakeSignal signal = attempt.newSignal();
                attempt.checkNotAbandoned(this);
                mayOwnNode = true;
                LockBackend.Reply created = createRetryingMissingParent(holderPath, false, attemptData);
                if (created.code() == Code.OK) {
                    Hold hold = grant(attempt, holderPath, created.entry());
                    if (hold == null) {
                        throw attempt.abandoned(this);
                    }
                    granted = true;
                    return Optional.of(hold);
                } else if (created.code() != Code.NODEEXISTS) {
                    throw KeeperException.create(created.code());
                }
                // NodeExists: read the holder.
                LockBackend.Reply holder = backend.readAndWatchBlocking(holderPath, signal);
                if (holder.code() == Code.NONODE) {
                    mayOwnNode = false;
                    if (isPast(timed, deadlineNanos)) {
                        return Optional.empty();
                    }
                    continue; // released meanwhile: try again at once
                } else if (holder.code() != Code.OK) {
                    throw KeeperException.create(holder.code());
                }
                if (holder.entry().isOwnedBy(backend.sessionId()) && Arrays.equals(holder.data(), attemptData)) {
                    Hold hold = grant(attempt, holderPath, holder.entry());
                    if (hold == null) {
                        throw attempt.abandoned(this);
                    }
                    granted = true;
                    return Optional.of(hold);
                }
                mayOwnNode = false; // the one holder node is someone else's
                if (!signal.await(timed, deadlineNanos)) {
                    return Optional.empty();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockCancelledException(lockPath, "interrupted while acquiring", e);
        } catch (Exception e) {
            throw translate("test-and-set lock acquisition", e);
        } finally {
            if (!granted) {
                endAcquire(attempt);
                if (mayOwnNode) {
                    SyncSupport.logIfFailed(backend.deleteOwnedIfData(lockPath, holderPath, attemptData), lockPath);
                }
            }
        }
    }
}
