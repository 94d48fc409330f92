package io.synod.recipes.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

/** The {@link LockHandle} of every lock: a held node of one session, and its end (released or lost). */
final class Hold implements LockHandle {

    enum State { HELD, RELEASED, LOST }

    private final String lockPath;
    private final String nodePath;
    private final long fencingToken;
    private final long sessionId;
    private final AtomicReference<State> state = new AtomicReference<>(State.HELD);
    private final CompletableFuture<LockLossReason> lost = new CompletableFuture<>();

    Hold(String lockPath, String nodePath, long czxid, long sessionId) {
        this.lockPath = lockPath;
        this.nodePath = nodePath;
        this.fencingToken = czxid;
        this.sessionId = sessionId;
    }

    @Override
    public long fencingToken() {
        return fencingToken;
    }

    @Override
    public String lockPath() {
        return lockPath;
    }

    @Override
    public String nodePath() {
        return nodePath;
    }

    @Override
    public boolean isValid() {
        return state.get() == State.HELD;
    }

    @Override
    public CompletionStage<LockLossReason> lost() {
        return lost.minimalCompletionStage();
    }

    /** The session that owns the hold node; the node lives no longer than this session. */
    long sessionId() {
        return sessionId;
    }

    /** Ends the hold as lost; {@code true} if it was held until now (the caller must then clean up the node). */
    boolean markLost(LockLossReason reason) {
        if (state.compareAndSet(State.HELD, State.LOST)) {
            lost.complete(reason);
            return true;
        }
        return false;
    }

    /** Ends the hold as released; {@code true} if it was held until now (the caller must then delete the node). */
    boolean markReleased() {
        return state.compareAndSet(State.HELD, State.RELEASED);
    }

    @Override
    public String toString() {
        return "Hold{" + nodePath + ", token=" + fencingToken + ", session=0x" + Long.toHexString(sessionId) + ", " + state.get() + "}";
    }
}
