package io.synod.client;

/**
 * A watch asked for events from a position the server no longer keeps (older than its bounded event log, or than
 * the snapshot its replica restarted from). Read the current state, then watch again from the slot of that read + 1.
 */
public final class WatchCompactedException extends SynodException {
    private static final long serialVersionUID = 1L;

    public WatchCompactedException(String message) {
        super(message);
    }
}
