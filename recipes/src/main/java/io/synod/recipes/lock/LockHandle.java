package io.synod.recipes.lock;

import java.util.concurrent.CompletionStage;

/**
 * One successful acquisition of a lock: the proof of the hold that the holder passes to the resources
 * it protects.
 *
 * <p><b>Fencing.</b> {@link #fencingToken()} is the creation zxid ({@code czxid}) of the znode that
 * represents this hold. ZooKeeper assigns zxids in one total order, and a later holder's node is always
 * created after the earlier holder's node (queue lock: holders are served in creation order; test-and-set
 * lock: the node can only be created once the previous one is gone), so tokens are strictly increasing per
 * lock path across acquisitions, by every client, even if the lock path is deleted and recreated. A
 * resource that remembers the highest token it has accepted and rejects lower ones cannot be corrupted by
 * a holder that lost the lock without noticing in time (a paused process, a partition).
 *
 * <p><b>Validity.</b> {@link #isValid()} becomes {@code false}, permanently, as soon as the hold is released
 * or lost. Loss is detected from the client side, so it is necessarily late by up to the detection delay
 * (see {@link LockOptions#suspendedLostBound()}); the fencing token is what makes that delay safe.
 *
 * <p>A handle is safe to share between threads: its identity is immutable and its state changes atomically.
 */
public interface LockHandle {

    /** Strictly increasing per lock path across acquisitions (the hold node's czxid). */
    long fencingToken();

    /** The lock path given to the factory. */
    String lockPath();

    /** The znode that represents this hold. */
    String nodePath();

    /** {@code false} once this hold is lost or released; never becomes {@code true} again. */
    boolean isValid();

    /**
     * Completes when the hold is lost, with the reason. It does not complete when the hold ends by a normal
     * release (it then stays incomplete forever). The returned stage is read-only: completing it from the
     * outside has no effect on the hold.
     */
    CompletionStage<LockLossReason> lost();
}
