package io.synod.core.paxos;

import io.synod.protocol.ClientReply;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The output a replica gathers between two {@link Ready}s: what to persist (the promise, entries, a
 * snapshot, a compaction point), what to send, what was committed (for the application to apply) and what to answer. Entries are
 * kept per slot in first-write order, so a slot rewritten before the Ready is taken is written
 * once, with its latest value.
 */
final class Outbox {
    private Ballot promise;
    private final LinkedHashMap<Long, Entry> entries = new LinkedHashMap<>();
    private Snapshot snapshot;
    private long compactThroughSlot;
    private final List<Message> messages = new ArrayList<>();
    private final List<Committed> committed = new ArrayList<>();
    private final List<ClientReply> replies = new ArrayList<>();
    private boolean resign;

    void persistPromise(Ballot ballot) {
        promise = ballot;
    }

    void persistEntry(Entry entry) {
        entries.put(entry.slot(), entry);
    }

    void persistSnapshot(Snapshot newSnapshot) {
        snapshot = newSnapshot;
    }

    /** Durable entries at or below {@code slot} may go; unwritten ones there need not be written. */
    void compactThrough(long slot) {
        entries.keySet().removeIf(s -> s <= slot);
        compactThroughSlot = Math.max(compactThroughSlot, slot);
    }

    void send(Message message) {
        messages.add(message);
    }

    void committed(Committed entry) {
        committed.add(entry);
    }

    /** Removes and returns the committed entries not taken yet. */
    List<Committed> dropCommitted() {
        List<Committed> dropped = new ArrayList<>(committed);
        committed.clear();
        return dropped;
    }

    void reply(ClientReply reply) {
        replies.add(reply);
    }

    void resign() {
        resign = true;
    }

    boolean isEmpty() {
        return promise == null && entries.isEmpty() && snapshot == null && compactThroughSlot == 0 && messages.isEmpty()
                && committed.isEmpty() && replies.isEmpty() && !resign;
    }

    /** Everything gathered, as a Ready; the outbox is empty afterwards. */
    Ready take() {
        Ready ready = new Ready(promise, new ArrayList<>(entries.values()), snapshot, compactThroughSlot, messages, committed,
                replies, resign);
        promise = null;
        entries.clear();
        snapshot = null;
        compactThroughSlot = 0;
        messages.clear();
        committed.clear();
        replies.clear();
        resign = false;
        return ready;
    }
}
