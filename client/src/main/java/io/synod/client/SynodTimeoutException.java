package io.synod.client;

/**
 * The call's timeout passed without an answer, and the call did not change anything: a read, or a
 * write that was never handed to a server. (A write that may have reached a server fails with
 * {@link OutcomeUnknownException} instead.)
 */
public class SynodTimeoutException extends SynodException {
    private static final long serialVersionUID = 1L;

    public SynodTimeoutException(String message) {
        super(message);
    }
}
