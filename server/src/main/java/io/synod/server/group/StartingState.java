package io.synod.server.group;

import io.synod.core.paxos.CodedValue;
import io.synod.core.paxos.Entry;
import io.synod.server.log.GroupStorage;
import io.synod.server.state.RocksKvStateMachine;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Storage work before a group's driver starts: which state the replica starts from. */
final class StartingState {
    private static final Logger LOG = LoggerFactory.getLogger(StartingState.class);

    private StartingState() {}

    /**
     * Whether RocksDB's applied state may be started from, or the snapshot must be (the replica then restores it).
     * Storage work before the driver starts.
     */
    static void choose(RocksKvStateMachine machine, GroupStorage storage, int group) {
        if (storage.repairAbove() != null) {
            // The damaged log may not hold the applied values between the snapshot and RocksDB's
            // slot: start from the snapshot instead (the replica restores it into RocksDB).
            machine.ignoreDurableState();
        } else if (machine.unresolvedKeys() > 0) {
            Map<Long, CodedValue> coded = new HashMap<>();
            for (Entry e : storage.durableState().entries()) {
                if (e.coded() != null) {
                    coded.put(e.slot(), e.coded());
                }
            }
            if (!machine.unresolvedHeldBy(coded::get)) {
                // Deferred rebuild: RocksDB holds a key applied from a log entry this log no longer has (written
                // before that pass's fsync, then a crash). Its bytes cannot be rebuilt from here: start from the
                // snapshot (full values) and re-learn the rest, as a repair does.
                LOG.warn("group {}: an unresolved key's coded entry is missing from the log; starting from the snapshot",
                        group);
                machine.ignoreDurableState();
            }
        }
    }
}
