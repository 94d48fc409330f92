package io.synod.server.log;

import java.io.IOException;

/** Durable state that cannot be trusted at all (not a torn tail, not a repairable log hole). */
public final class CorruptStateException extends IOException {
    public CorruptStateException(String message) {
        super(message);
    }
}
