package io.synod.recipes.lock;

/** Why a {@link LockHandle} was lost. */
public enum LockLossReason {
    /**
     * The client's connection stayed SUSPENDED (or read-only) longer than the configured bound
     * ({@link LockOptions#suspendedLostBound()}). The session may still be alive on the server, so the hold node
     * may still exist; the lock deletes it once the connection comes back, so that others are not blocked by a
     * hold nobody believes in.
     */
    SESSION_SUSPENDED_TOO_LONG,
    /**
     * The session that owns the hold node ended: expired on the server, reported LOST by Curator, or replaced by
     * a new session. ZooKeeper deletes (or has deleted) the hold node.
     */
    SESSION_LOST,
    /** The hold node was deleted while held, by someone other than this lock object (for example an operator). */
    NODE_DELETED
}
