package io.synod.core.paxos;

import io.synod.protocol.ClientReply;
import java.util.List;

/**
 * Everything a replica needs done after a batch of inputs (etcd-io/raft's Ready). The runtime
 * must, in this order: (1) durably write {@link #promised}, {@link #entries} and
 * {@link #snapshot} (fsync), then drop durable entries at or below {@link #compactThroughSlot};
 * (2) only then send {@link #messages} and {@link #replies} — they may depend on that state
 * being durable (a promise or accept reply must never outrun its fsync); (3) call
 * {@link Replica#advance(Ready)}. If the process crashes before (1) completes, nothing of this
 * Ready may be sent. The one exception is a leader's Accepts, which {@link ReadyLoop} sends
 * before (1) ({@link ReadyLoop#maySendBeforePersist}): they vouch for nothing durable.
 *
 * @param promised       the newly promised ballot to persist, or null if unchanged
 * @param entries        accepted entries to write (an entry replaces any older one in its slot)
 * @param snapshot       a snapshot to write, or null
 * @param compactThroughSlot durable entries at or below this slot may be deleted (0: none)
 * @param messages       messages to other replicas
 * @param committed      entries chosen since the last Ready, in slot order, for the application to
 *                       apply ({@link Applier}) as soon as it takes this Ready, before any further input,
 *                       then report with {@link Replica#applied(Ready)} (etcd-io/raft's CommittedEntries);
 *                       protocol entries (no-ops, membership and coding changes) are included, the replica
 *                       having done their part
 * @param replies        answers to clients
 * @param resign         true when this replica gives up leadership it was handed (phase 1 failed,
 *                       or its epoch was stale): the election service should pick again
 */
public record Ready(
        Ballot promised,
        List<Entry> entries,
        Snapshot snapshot,
        long compactThroughSlot,
        List<Message> messages,
        List<Committed> committed,
        List<ClientReply> replies,
        boolean resign) {

    public Ready {
        entries = List.copyOf(entries);
        messages = List.copyOf(messages);
        committed = List.copyOf(committed);
        replies = List.copyOf(replies);
    }

    /** The committed entries themselves, in slot order (invariant checks, metrics). */
    public List<Entry> committedEntries() {
        return committed.stream().map(Committed::entry).toList();
    }

    /** True when something must be persisted before messages may leave. */
    public boolean mustPersist() {
        return promised != null || !entries.isEmpty() || snapshot != null;
    }

    public boolean isEmpty() {
        return !mustPersist() && compactThroughSlot == 0 && messages.isEmpty() && committed.isEmpty()
                && replies.isEmpty() && !resign;
    }
}
