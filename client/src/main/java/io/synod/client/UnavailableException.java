package io.synod.client;

/** The cluster cannot be reached: no server (or ZooKeeper) answered while the client was being built, or it is closed. */
public class UnavailableException extends SynodException {
    private static final long serialVersionUID = 1L;

    public UnavailableException(String message) {
        super(message);
    }

    public UnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
