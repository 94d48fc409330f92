package io.synod.recipes.lock;

import org.apache.zookeeper.KeeperException;

/**
 * ZooKeeper refused or could not perform an operation the lock needed (for example connection loss outlasting
 * Curator's retry policy, or missing permissions). The cause carries ZooKeeper's error; {@link #code()} its code.
 * Nothing is held; any node the failed acquisition may have created is being removed.
 */
public final class LockCoordinationException extends LockException {
    private static final long serialVersionUID = 1L;

    private final KeeperException.Code code;

    public LockCoordinationException(String lockPath, String message, KeeperException.Code code, Throwable cause) {
        super(lockPath, message + " (" + code + ")", cause);
        this.code = code;
    }

    /**
     * ZooKeeper's result code for the failed operation; {@code SYSTEMERROR} when the failure was not ZooKeeper's
     * (for example the Curator client was closed), {@code OPERATIONTIMEOUT} when a release was not confirmed within
     * one session timeout.
     */
    public KeeperException.Code code() {
        return code;
    }
}
