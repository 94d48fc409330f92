package io.synod.engine;

import io.synod.core.paxos.QuorumPolicy;

/**
 * Negative controls planted in the driver: deliberate bugs that the simulator switches on to show that its checks
 * catch them (docs/simulator.md, "Negative controls"). The server always runs {@link #NONE}; nothing here is read
 * from a configuration file.
 *
 * @param quorum the quorum policy the replica runs instead of the one its coding implies (the simulator's own, which
 *               its quorum mutations replace), or null for the coding's
 * @param bug    the bug planted in the driver's handlers, {@link Bug#NONE} for none
 */
public record DriverControls(QuorumPolicy quorum, Bug bug) {
    /** The real driver. */
    public static final DriverControls NONE = new DriverControls(null, Bug.NONE);

    /** The bugs a driver can be told to have, each in one handler. */
    public enum Bug {
        NONE,
        /** A Ready's messages and replies leave when its fsync starts, not when it ends (the Ready contract). */
        SEND_BEFORE_FSYNC,
        /**
         * A leader answers a write OK as soon as its entry is handed to the disk, before the fsync that covers it and
         * before any acceptor made it durable ({@link Waiters}).
         */
        REPLY_BEFORE_FSYNC,
        /**
         * A quorum-lease holder that refused a read (it holds an accepted write to the key it has not applied) answers
         * it at once from its local state instead of waiting for the write to apply ({@link HolderReadWait}).
         */
        HOLDER_READ_EARLY,
        /** A watch answer carries its events in reverse slot order ({@link WatchHub}). */
        WATCH_OUT_OF_ORDER
    }

    public DriverControls {
        if (bug == null) {
            throw new IllegalArgumentException("driver controls need a bug (Bug.NONE for none)");
        }
    }
}
