package io.synod.core.sim;

import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Cross-replica invariants checked as the simulation runs. The simulator sees every replica's
 * applied entries, which no real observer can, so it checks agreement directly: one command per
 * slot across all replicas and all incarnations (Paxos's safety property), slots applied in order,
 * and every acknowledged write sitting in the chosen log at the slot its reply names (checked when the
 * slot is first applied if the write was acknowledged before that).
 */
final class SafetyMonitor {
    private record Chosen(Command command, int node) {}

    private record Ack(int node, long clientId, long sequence, long slot, long atNanos) {}

    private final Map<Long, Chosen> chosenBySlot = new HashMap<>();
    /**
     * Writes acknowledged before any replica applied their slot (a quorum-lease leader answers a
     * chosen write before the slots ahead of it commit): checked when the slot is first applied, and
     * a violation if it never is.
     */
    private final Map<Long, List<Ack>> pendingAcks = new HashMap<>();
    private long acksBeforeApply;
    private final long[] lastAppliedSlot;
    private SimViolation violation;

    SafetyMonitor(int nodes) {
        lastAppliedSlot = new long[nodes];
        Arrays.fill(lastAppliedSlot, -1);
    }

    /** The first violation seen, or null. */
    SimViolation violation() {
        return violation;
    }

    /** A new incarnation starts from whatever its disk holds; its first applied slot is unknown. */
    void onRestart(int node) {
        lastAppliedSlot[node] = -1;
    }

    void onApplied(int node, Iterable<Entry> applied, long nowNanos) {
        for (Entry entry : applied) {
            if (entry.slot() <= lastAppliedSlot[node]) {
                fail(SimViolation.Kind.APPLY_ORDER, nowNanos, "node " + node + " applied slot " + entry.slot()
                        + " after slot " + lastAppliedSlot[node]);
                return;
            }
            lastAppliedSlot[node] = entry.slot();
            Chosen previous = chosenBySlot.putIfAbsent(entry.slot(), new Chosen(entry.command(), node));
            if (previous != null && !previous.command.equals(entry.command())) {
                fail(SimViolation.Kind.SLOT_CONFLICT, nowNanos, "slot " + entry.slot() + ": node " + previous.node
                        + " applied " + previous.command + ", node " + node + " applied " + entry.command()
                        + " (ballot " + entry.ballot() + ")");
                return;
            }
            if (previous == null && !pendingAcks.isEmpty()) {
                List<Ack> acks = pendingAcks.remove(entry.slot());
                if (acks != null) {
                    for (Ack ack : acks) {
                        checkAck(ack, nowNanos);
                    }
                }
            }
        }
    }

    /** A replica answered OK to a write of (clientId, sequence) at {@code slot}. */
    void onWriteAcknowledged(int node, long clientId, long sequence, long slot, long nowNanos) {
        Ack ack = new Ack(node, clientId, sequence, slot, nowNanos);
        if (chosenBySlot.containsKey(slot)) {
            checkAck(ack, nowNanos);
        } else {
            acksBeforeApply++;
            pendingAcks.computeIfAbsent(slot, s -> new ArrayList<>()).add(ack);
        }
    }

    /** Writes acknowledged before any replica applied their slot. */
    long acksBeforeApply() {
        return acksBeforeApply;
    }

    private void checkAck(Ack ack, long nowNanos) {
        Chosen chosen = chosenBySlot.get(ack.slot);
        if (chosen.command.clientId() != ack.clientId || chosen.command.sequence() != ack.sequence) {
            fail(SimViolation.Kind.ACK_MISMATCH, nowNanos, "node " + ack.node + " acknowledged client " + ack.clientId + "#"
                    + ack.sequence + " at slot " + ack.slot + " (at " + ack.atNanos / 1000 + "us), where node " + chosen.node
                    + " applied " + chosen.command);
        }
    }

    /** End of the seed: a write acknowledged at a slot that no replica ever applied is a violation. */
    void checkNoUnappliedAcks(long nowNanos) {
        for (List<Ack> acks : pendingAcks.values()) {
            Ack ack = acks.get(0);
            fail(SimViolation.Kind.ACK_MISMATCH, nowNanos, "node " + ack.node + " acknowledged client " + ack.clientId + "#"
                    + ack.sequence + " at slot " + ack.slot + " (at " + ack.atNanos / 1000 + "us), which no replica applied");
            return;
        }
    }

    /** A replica's promised ballot or applied slot went backwards without a restart. */
    void onRegression(String description, long nowNanos) {
        fail(SimViolation.Kind.REGRESSION, nowNanos, description);
    }

    private void fail(SimViolation.Kind kind, long nowNanos, String description) {
        if (violation == null) {
            violation = new SimViolation(kind, nowNanos, description);
        }
    }
}
