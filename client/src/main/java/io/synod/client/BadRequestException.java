package io.synod.client;

/**
 * The request itself is wrong, and retrying it will not help: the server refused it (malformed), or the
 * state machine answered with an error (for example a value operation on a key holding a list).
 */
public class BadRequestException extends SynodException {
    private static final long serialVersionUID = 1L;

    public BadRequestException(String message) {
        super(message);
    }
}
