package io.synod.client;

/** The session a call named has ended (expired by the leader, or revoked): its keys are gone. */
public final class SessionExpiredException extends SynodException {
    private static final long serialVersionUID = 1L;

    private final long sessionId;

    public SessionExpiredException(long sessionId, String message) {
        super(message);
        this.sessionId = sessionId;
    }

    public long sessionId() {
        return sessionId;
    }
}
