package io.synod.coordination;

/** A coordination operation failed (ZooKeeper unreachable, interrupted, unexpected state). */
public class CoordinationException extends RuntimeException {
    public CoordinationException(String message) {
        super(message);
    }

    public CoordinationException(String message, Throwable cause) {
        super(message, cause);
    }
}
