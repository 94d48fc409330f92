package io.synod.recipes.lock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooKeeper;

/** What the locks need to know about the client's current ZooKeeper session. */
final class Sessions {

    /** Used only when the client has never connected and ZooKeeper reports no timeout at all. */
    private static final int FALLBACK_SESSION_TIMEOUT_MILLIS = 60_000;

    private Sessions() {}

    /**
     * The ZooKeeper handle Curator uses right now. A handle belongs to one session for its whole life (Curator
     * replaces the handle when a session expires), which is what lets the reaper pin operations to a session.
     */
    static ZooKeeper currentHandle(CuratorFramework client) throws Exception {
        return client.getZookeeperClient().getZooKeeper();
    }

    /**
     * The id of the current session, or 0 when there is none (never connected, or the client is closed). Curator
     * also hands a queued background error to whoever asks for the handle; that reads as 0 too, which every caller
     * treats as "not the session I own": the safe side (an acquisition fails, a hold is declared lost).
     */
    static long currentSessionId(CuratorFramework client) {
        try {
            return currentHandle(client).getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    /** The negotiated session timeout, or the requested one before the first connection. */
    static int sessionTimeoutMillis(CuratorFramework client) {
        int negotiated = client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
        if (negotiated > 0) {
            return negotiated;
        }
        try {
            int requested = currentHandle(client).getSessionTimeout();
            return requested > 0 ? requested : FALLBACK_SESSION_TIMEOUT_MILLIS;
        } catch (Exception e) {
            return FALLBACK_SESSION_TIMEOUT_MILLIS;
        }
    }
}
