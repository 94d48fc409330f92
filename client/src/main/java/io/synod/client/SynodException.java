package io.synod.client;

/**
 * The root of the SDK's failures (unchecked). Subclasses say what happened: {@link SynodTimeoutException},
 * {@link OutcomeUnknownException}, {@link BadRequestException} (with {@link InvalidKeyException} and
 * {@link ValueTooLargeException}), {@link UnavailableException}. A server's "not the leader" answer
 * never surfaces: the client follows the leader hint and retries.
 */
public class SynodException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SynodException(String message) {
        super(message);
    }

    public SynodException(String message, Throwable cause) {
        super(message, cause);
    }
}
