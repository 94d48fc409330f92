package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.util.Arrays;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The acceptor role and its durable state: the highest ballot promised, the accepted entries (with
 * a retained tail at or below the snapshot for catch-up) and the latest snapshot. Every change is
 * also handed to the {@link Outbox}, so it is persisted before anything that depends on it leaves.
 *
 * <p>Rules (Lamport, "Paxos Made Simple", 2001, §2.2): promise only ballots above the current
 * promise, and never accept below it (P1a); answer a Prepare with what was accepted from the
 * requested slot on, so the new leader can pick the highest-ballot value of each slot.
 */
final class Acceptor {
    private final ReplicaContext ctx;
    private Ballot promised;
    private final SlotMap<Entry> log = new SlotMap<>();
    /**
     * The coding-change commands {@link #log} holds, by slot, kept with every write and compaction of the log. A
     * quorum-lease read decision needs the ones past the applied slot (rule QL2) on every read; they are few (none
     * in an uncoded group, else those accepted since the last compaction), so it reads them here, not the log.
     */
    private final NavigableMap<Long, Command> codingChanges = new TreeMap<>();
    private Snapshot snapshot;
    /** What the last {@link #accept(Message.Accept, long)} changed, for {@link #trustedCommit}. */
    private long lowestWritten = Long.MAX_VALUE;
    private boolean divergent;

    /** Rebuilds the acceptor from what the disk holds. */
    Acceptor(ReplicaContext ctx, DurableState durable) {
        this.ctx = ctx;
        this.snapshot = durable.snapshot();
        Ballot durablePromise = durable.promised();
        for (Entry entry : durable.entries()) {
            // Accepting in a ballot implies promising it (Paxos Made Simple, §2.2), so a durable
            // entry above the durable promise (the promise write was torn off) raises the promise.
            if (entry.ballot().isAbove(durablePromise)) {
                durablePromise = entry.ballot();
            }
            if (entry.slot() <= snapshot.lastIncludedSlot()) {
                continue; // Chosen and covered by the snapshot.
            }
            Entry previous = store(entry);
            Check.argument(previous == null, "durable state holds two entries for slot %d", entry.slot());
        }
        this.promised = durablePromise;
    }

    Ballot promised() {
        return promised;
    }

    /** Promises {@code ballot} (strictly above the current promise) and schedules its write. */
    void raisePromise(Ballot ballot) {
        Check.state(ballot.isAbove(promised), "promise must only grow: %s after %s", ballot, promised);
        promised = ballot;
        ctx.out.persistPromise(ballot);
    }

    /**
     * Accepts (or, as leader, appends) {@code entry} and schedules its write. Re-accepting the same
     * coded value in a newer ballot without data (or with less: a shard where a full copy is held)
     * keeps what this acceptor already held (its own shard is kept even when another index arrives), so
     * the distinct shards of a value among the acceptors never get fewer (RS-Paxos §4).
     */
    void accept(Entry entry) {
        Entry held = log.get(entry.slot());
        if (held != null && held.coded() == null && entry.coded() == null && held.ballot().equals(entry.ballot())
                && held.sameValue(entry) && Objects.equals(held.stamp(), entry.stamp())) {
            // A retransmission of the entry this acceptor holds: it is durable, or waits in this Ready
            // or the one being persisted, and the acknowledgement leaves only with a later or the same
            // Ready, after that fsync. Writing it again would only add disk traffic: under load
            // (commits slower than the retransmit interval) followers wrote each entry 2 to 4 times.
            return;
        }
        if (held != null && entry.coded() != null && held.coded() != null && richness(held) > 0
                && richness(held) >= richness(entry) && held.sameValue(entry)) {
            entry = new Entry(entry.slot(), entry.ballot(), held.command(), held.coded(), entry.stamp());
        }
        store(entry);
        ctx.out.persistEntry(entry);
    }

    /** Puts {@code entry} in the log (replacing what its slot held) and in {@link #codingChanges}; returns the old. */
    private Entry store(Entry entry) {
        if (Coding.isChange(entry.command())) {
            codingChanges.put(entry.slot(), entry.command());
        } else {
            codingChanges.remove(entry.slot()); // a phase 1 overwrite may replace a change with another value
        }
        return log.put(entry.slot(), entry);
    }

    /**
     * Phase 2b: stores the entries of {@code m} proposed in its own ballot (slots above
     * {@code commitSlot} only: a chosen slot can only be re-sent with the same value), and returns
     * the slots to acknowledge. A different value for a slot known to be chosen is refused (not
     * acknowledged) and reported to the {@link ReplicaGuard}, as is a second value for a slot in one
     * ballot (a leader proposes one value per slot and ballot). {@link #trustedCommit} tells how far
     * the commit point this message carries may be believed.
     */
    long[] accept(Message.Accept m, long commitSlot) {
        long[] slots = new long[m.entries().size()];
        int count = 0;
        lowestWritten = Long.MAX_VALUE;
        divergent = false;
        for (Entry entry : m.entries()) {
            if (!entry.ballot().equals(m.ballot())) {
                continue; // Malformed: an Accept proposes in its own ballot only.
            }
            Entry held = log.get(entry.slot());
            if (entry.slot() > commitSlot) {
                boolean sameBallot = held != null && held.ballot().equals(entry.ballot());
                if (ctx.guard.checksDivergence() && !(sameBallot && held.sameValue(entry))) {
                    if (sameBallot) {
                        ctx.guard.divergence(held, entry, false);
                        divergent = true;
                    }
                    lowestWritten = Math.min(lowestWritten, entry.slot());
                }
                accept(entry);
            } else if (held != null && !held.sameValue(entry) && ctx.guard.checksDivergence()) {
                ctx.guard.divergence(held, entry, true);
                divergent = true;
                continue; // Refused: the chosen value stays, and a refusal is not an acknowledgement.
            } else if (entry.coded() != null && entry.isComplete()) {
                // A full copy of a committed coded value (catch-up): keep it for applying.
                if (held != null && !held.isComplete() && held.sameValue(entry)) {
                    ctx.cache.put(entry.slot(), entry.command(), entry.coded());
                }
            }
            slots[count++] = entry.slot();
        }
        return Arrays.copyOf(slots, count);
    }

    /**
     * How far the commit point {@code leaderCommit} of the Accept just handled ({@link #accept(Message.Accept, long)})
     * may be believed: not up to a slot whose value or ballot that message changed (a value is taken as chosen
     * only once it was held before the message that reports it chosen, so one forged Accept cannot both write
     * a value and commit it), and not at all if the message offered a divergent value (its sender is forged
     * or corrupt). Returns -1 for "learn nothing from it".
     */
    long trustedCommit(long leaderCommit) {
        if (divergent) {
            return -1;
        }
        return lowestWritten == Long.MAX_VALUE ? leaderCommit : Math.min(leaderCommit, lowestWritten - 1);
    }

    /**
     * Phase 1b for a Prepare whose ballot was promised: one page of the entries accepted at or above
     * its {@code fromSlot} (at most {@link ReplicaConfig#maxPromiseBytes()}), where the next page
     * starts, and the snapshot slot (everything up to it is chosen; the candidate fetches the
     * snapshot in chunks if it is behind it).
     */
    Message.Promise promise(Message.Prepare m) {
        long fromSlot = Math.max(1, m.fromSlot());
        EntryBatch page = new EntryBatch(Integer.MAX_VALUE, ctx.config.maxPromiseBytes());
        long nextSlot = 0;
        for (Entry entry : log.valuesFrom(fromSlot)) {
            if (!page.tryAdd(entry)) {
                nextSlot = entry.slot();
                break;
            }
        }
        return new Message.Promise(ctx.self, m.from(), m.ballot(), fromSlot, page.take(), snapshot.lastIncludedSlot(),
                nextSlot);
    }

    /** 2 for a whole value, 1 for a shard, 0 for a stub without a shard. */
    private static int richness(Entry entry) {
        return entry.isComplete() ? 2 : entry.coded().shard() != null ? 1 : 0;
    }

    Entry entry(long slot) {
        return log.get(slot);
    }

    /** Accepted entries at or above {@code slot}, in slot order (a live view). */
    Iterable<Entry> entriesFrom(long slot) {
        return log.valuesFrom(slot);
    }

    /**
     * The fewest of {@code failures} and the F each coding-change entry held above {@code slot} sets: what a walk of
     * the log from {@code slot + 1} would find, read from {@link #codingChanges} (empty without coding).
     */
    int fewestFailuresAbove(long slot, int failures) {
        int fewest = failures;
        for (Command change : codingChanges.tailMap(slot, false).values()) {
            fewest = Math.min(fewest, Coding.failuresAfter(change));
        }
        return fewest;
    }

    /** Highest slot holding an accepted entry, or the snapshot's slot if higher. */
    long lastSlot() {
        return log.isEmpty() ? snapshot.lastIncludedSlot() : Math.max(log.lastSlot(), snapshot.lastIncludedSlot());
    }

    Snapshot snapshot() {
        return snapshot;
    }

    /** Makes {@code newSnapshot} the latest and schedules its write. */
    void replaceSnapshot(Snapshot newSnapshot) {
        snapshot = newSnapshot;
        ctx.out.persistSnapshot(newSnapshot);
    }

    /** Drops entries at or below {@code slot}, here and (after the next Ready) on disk. */
    void compactThrough(long slot) {
        log.removeThrough(slot);
        codingChanges.headMap(slot, true).clear();
        ctx.out.compactThrough(slot);
    }
}
