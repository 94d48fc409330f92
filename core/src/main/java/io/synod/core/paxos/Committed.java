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
 * @param configuration    for a membership or coding change (protocol entries: the replica already put them
 *                         in force), the configuration after it, which a durable state machine stores with the
 *                         applied slot ({@link GroupMembership#encode()}, {@link Coding#encodeParameters()}); else null
 */
public record Committed(Entry entry, boolean awaited, byte[] configuration) {
    public long slot() {
        return entry.slot();
    }

    /** Whether the command is applied from its deferral header, its value bytes rebuilt later. */
    public boolean deferred() {
        return entry.coded() != null;
    }
}
