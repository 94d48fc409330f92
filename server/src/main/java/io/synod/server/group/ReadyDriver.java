package io.synod.server.group;

import io.synod.core.paxos.ClientReply;
import io.synod.core.paxos.Message;
import io.synod.core.paxos.Ready;
import io.synod.core.paxos.Replica;

/**
 * The Ready contract, in one place (the simulator follows the same order): (1) persist and fsync,
 * (2) only then send messages and answer clients, (3) advance. Kept small and separate so the
 * server can switch to core's shared Ready-driving loop when that lands.
 */
final class ReadyDriver {
    /** What the runtime does with each part of a Ready. */
    interface Effects {
        /** Must return only when durable; throws {@code StorageFailure} otherwise. */
        void persist(Ready ready);

        void send(Message message);

        void reply(ClientReply reply);

        void resign();

        void applied(Ready ready);
    }

    /** A replica that never stops producing Readys without new input is broken: fail loudly. */
    static final int MAX_READYS_PER_DRIVE = 1_000;

    private ReadyDriver() {}

    /** Drives {@code replica} until it has nothing more; returns how many Readys were handled. */
    static int drive(Replica replica, Effects effects) {
        int count = 0;
        while (replica.hasReady()) {
            if (++count > MAX_READYS_PER_DRIVE) {
                throw new IllegalStateException("replica produced more than " + MAX_READYS_PER_DRIVE
                        + " Readys without new input");
            }
            Ready ready = replica.ready();
            if (ready.mustPersist() || ready.compactThroughSlot() > 0) {
                effects.persist(ready);
            }
            for (Message m : ready.messages()) {
                effects.send(m);
            }
            for (ClientReply r : ready.replies()) {
                effects.reply(r);
            }
            effects.applied(ready);
            replica.advance(ready);
            if (ready.resign()) {
                effects.resign();
            }
        }
        return count;
    }
}
