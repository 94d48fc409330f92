package io.synod.client;

import java.util.concurrent.ThreadLocalRandom;

/**
 * One lane of {@link ClientEngine}: a random client id and its sequence counter, running at most one
 * command at a time so the replicas' per-client-id deduplication gives at most once.
 */
final class Lane {
    long clientId = newClientId();
    long sequence;

    /** A fresh random client id (never 0). */
    static long newClientId() {
        return ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    }
}
