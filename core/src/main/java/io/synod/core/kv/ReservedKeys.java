package io.synod.core.kv;

import io.synod.protocol.KvCommand;
import io.synod.protocol.SessionCommand;

/**
 * Keys of the key-value state machine that belong to the replicas themselves: every key starting with
 * {@link #PREFIX} (today the quorum-lease configuration agreed through the log, docs/leases.md rule C1).
 * Clients may read them but never change them: a client's put, delete, append or compare-and-set of one
 * would overwrite (or, by deleting it, take back to version 0) state the replicas' lease policy relies
 * on. {@link KvStateMachine#validate} refuses such commands before they are proposed, so the refusal is
 * a REJECTED answer naming the key; the replicas' own entries are appended by the leader's policy and
 * never pass through that door.
 */
public final class ReservedKeys {
    /** Every key starting with this (NUL, then "synod/") is reserved. */
    public static final String PREFIX = "\u0000synod/";
    /**
     * The client id of the replicas' own commands on reserved keys (their sequence number is their slot);
     * a client's command with it is refused, so the at-most-once table never mistakes one of the replicas'
     * commands for a retry of a client's.
     */
    public static final long CLIENT_ID = Long.MAX_VALUE - 17;

    private ReservedKeys() {}

    /** Whether {@code key} is reserved. */
    public static boolean isReserved(String key) {
        return key != null && key.startsWith(PREFIX);
    }

    /**
     * Throws {@link IllegalArgumentException} naming the key if the decoded client command would change a
     * reserved key; reads (gets, list reads, scans, prefix listings) of them pass.
     */
    static void refuseChanges(KvCommand command) {
        if (!command.isReadOnly()) {
            refuse(command.key(), command.getClass().getSimpleName());
        }
    }

    /** The same for a session command: creating or deleting a reserved key is refused. */
    static void refuseChanges(SessionCommand command) {
        if (command instanceof SessionCommand.Create c) {
            refuse(c.key(), "Create");
        } else if (command instanceof SessionCommand.DeleteIf d) {
            refuse(d.key(), "DeleteIf");
        }
    }

    private static void refuse(String key, String operation) {
        if (isReserved(key)) {
            throw new IllegalArgumentException("key \"" + printable(key) + "\" is reserved (keys starting with \""
                    + printable(PREFIX) + "\" are written only by the replicas): " + operation + " refused");
        }
    }

    /** {@code key} with a NUL shown as {@code \0}, so the message names it readably. */
    static String printable(String key) {
        return key.replace("\u0000", "\\0");
    }
}
