package io.synod.server.log;

/**
 * A write or fsync the storage could not complete. After a failed fsync the kernel may have dropped
 * the dirty pages and cleared the error ("fsyncgate", PostgreSQL 2018), so a retry can succeed over
 * lost data: the replica that sees this must stop, not retry.
 */
public final class StorageFailure extends RuntimeException {
    public StorageFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
