package io.synod.engine;

import io.synod.core.kv.KvSessions;
import io.synod.core.kv.KvWatchLog;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the driver reads from a key-value state machine beside the {@code StateMachine} read path:
 * the live sessions (for the leader's expiry timer) and the watch event log (for long polls). Reads of
 * the applied state only; writes reach the machine through the Applier, as the driver takes each Ready.
 */
public interface KvState {
    List<KvSessions.Session> liveSessions();

    KvWatchLog watchLog();

    /** The sessions as {@code sessions} reads them now, and the event log {@code watchLog}. */
    static KvState of(Supplier<List<KvSessions.Session>> sessions, KvWatchLog watchLog) {
        return new KvState() {
            @Override
            public List<KvSessions.Session> liveSessions() {
                return sessions.get();
            }

            @Override
            public KvWatchLog watchLog() {
                return watchLog;
            }
        };
    }
}
