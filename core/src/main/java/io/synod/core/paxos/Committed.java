package io.synod.core.paxos;

/**
 * One chosen entry a {@link Ready} hands to the application, in slot order (etcd-io/raft's
 * {@code CommittedEntries}): the replica has taken it as chosen and updated its protocol state
 * (commit point, membership, coding), and the application applies it with an {@link Applier}, then
 * the replica hears of it through {@link Replica#applied(Ready)}.
 *
 * @param entry            the chosen entry: its command whole, or, for a coded value this replica applies
 *                         from its deferral header without the value bytes (docs/erasure.md "Deferred
 *                         follower rebuild"), the entry as held with its {@link CodedValue} (see {@link #deferred()})
 * @param awaited          whether a client waits at this replica for this command's answer (the answer
 *                         leaves with the Ready's other replies)
 * @param codingParameters for a coding change, the parameters in force after it (a durable state machine
 *                         stores them with the applied slot); else null
 */
public record Committed(Entry entry, boolean awaited, byte[] codingParameters) {
    public long slot() {
        return entry.slot();
    }

    /** Whether the command is applied from its deferral header, its value bytes rebuilt later. */
    public boolean deferred() {
        return entry.coded() != null;
    }

    /**
     * Whether applying it is the replica's own business: no-ops (the end-lease entry included) and
     * membership changes change no application state. A coding change is protocol too, but a durable
     * state machine records it ({@link #codingParameters()}).
     */
    public boolean protocolOnly() {
        Command command = entry.command();
        return command.isNoop() || GroupMembership.isChange(command);
    }
}
