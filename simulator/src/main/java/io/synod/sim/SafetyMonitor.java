package io.synod.sim;

import io.synod.core.paxos.CodedValue;
import io.synod.core.paxos.Command;
import io.synod.core.paxos.Entry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Cross-replica invariants checked as the simulation runs. The simulator sees every replica's
 * applied entries, which no real observer can, so it checks agreement directly: one command per
 * slot across all replicas and all incarnations (Paxos's safety property), slots applied in order,
 * and every acknowledged write sitting in the chosen log at the slot its reply names (checked when the
 * slot is first applied if the write was acknowledged before that).
 */
final class SafetyMonitor {
    /**
     * What one replica applied in a slot. With deferred rebuild a replica applies a coded value it
     * did not rebuild as its stub ({@code coded} set, empty payload): it is compared by client id,
     * sequence, length and CRC32C, and replaced by the whole command once some replica applies that.
     */
    private record Chosen(Command command, CodedValue coded, int node) {
        boolean isStub() {
            return coded != null;
        }
    }

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
            boolean stub = !entry.isComplete();
            Chosen now = new Chosen(entry.command(), stub ? entry.coded() : null, node);
            Chosen previous = chosenBySlot.putIfAbsent(entry.slot(), now);
            if (previous != null && previous.isStub() && !stub && matches(entry.command(), previous)) {
                chosenBySlot.put(entry.slot(), now);
            } else if (previous != null && (stub ? !matches(previous, now) : !previous.isStub()
                    ? !previous.command.equals(entry.command()) : !matches(entry.command(), previous))) {
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

    /** Whether the whole {@code command} is the value the stub {@code stub} stands for. */
    private static boolean matches(Command command, Chosen stub) {
        CRC32C crc = new CRC32C();
        crc.update(command.payload());
        return command.clientId() == stub.command.clientId() && command.sequence() == stub.command.sequence()
                && command.payload().length == stub.coded.valueLength() && (int) crc.getValue() == stub.coded.valueChecksum();
    }

    /** Whether {@code applied} (whole or a stub) and the stub {@code stub} stand for the same value. */
    private static boolean matches(Chosen applied, Chosen stub) {
        if (!applied.isStub()) {
            return matches(applied.command, stub);
        }
        return applied.command.clientId() == stub.command.clientId() && applied.command.sequence() == stub.command.sequence()
                && applied.coded.valueLength() == stub.coded.valueLength()
                && applied.coded.valueChecksum() == stub.coded.valueChecksum();
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
