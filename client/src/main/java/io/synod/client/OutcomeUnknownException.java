package io.synod.client;

/**
 * A write was sent but no final answer came before its timeout (the leader died, the connection
 * broke, the cluster was unavailable): it may or may not have taken effect, and it will take effect
 * at most once. Read the key to find out.
 */
public class OutcomeUnknownException extends SynodException {
    private static final long serialVersionUID = 1L;

    public OutcomeUnknownException(String message) {
        super(message);
    }
}
