package io.synod.core.sim;

import io.synod.core.kv.KvStateMachine;
import io.synod.core.paxos.StateMachine;
import io.synod.protocol.KvResult;
import io.synod.protocol.SessionResult;

/**
 * The state machine the simulated replicas run (a fresh one per replica incarnation: a restart
 * rebuilds it from the snapshot on disk), and how the simulator reads its results. The simulated
 * clients issue key-value list-append and list-read commands ({@code SimClients}), so a state machine
 * plugged in here must understand them: for example the KV machine wrapped to count or inject
 * something, or a variant that stores values coded. A workload of its own needs its own clients.
 */
public interface SimStateMachine {
    /** A fresh, empty state machine for one incarnation of {@code nodeId}. */
    StateMachine create(int nodeId);

    /**
     * Whether an OK reply with {@code result} acknowledges an applied write, which the simulator
     * then checks sits in the chosen log at the slot the reply names.
     */
    boolean isWriteResult(byte[] result);

    /**
     * The key-value state machine keeping the CRC32C of each list's last append note ({@code new
     * KvStateMachine(true)}): what the simulator runs when the workload appends large notes (coded mode), so
     * the notes' bytes determine state and reads return that checksum (checked by the clients).
     */
    SimStateMachine KV_WITH_NOTES = new SimStateMachine() {
        @Override
        public StateMachine create(int nodeId) {
            return new KvStateMachine(true);
        }

        @Override
        public boolean isWriteResult(byte[] result) {
            return KV.isWriteResult(result);
        }

        @Override
        public String toString() {
            return "kv-with-notes";
        }
    };

    /** The key-value state machine, {@link KvStateMachine}. */
    SimStateMachine KV = new SimStateMachine() {
        @Override
        public StateMachine create(int nodeId) {
            return new KvStateMachine();
        }

        @Override
        public boolean isWriteResult(byte[] result) {
            try {
                if (SessionResult.isSessionResult(result)) {
                    SessionResult session = SessionResult.decode(result);
                    return !(session instanceof SessionResult.Entry || session instanceof SessionResult.Listing
                            || session instanceof SessionResult.Refused);
                }
                return KvResult.decode(result) instanceof KvResult.Done;
            } catch (IllegalArgumentException e) {
                return false;
            }
        }

        @Override
        public String toString() {
            return "kv";
        }
    };
}
