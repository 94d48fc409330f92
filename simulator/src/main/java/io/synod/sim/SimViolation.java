package io.synod.sim;

/**
 * Something a seed did that the protocol promises never happens.
 *
 * @param kind        which promise was broken
 * @param timeNanos   simulated time at which it was detected
 * @param description what exactly, with nodes, slots and values
 */
public record SimViolation(Kind kind, long timeNanos, String description) {
    public enum Kind {
        /** Two replicas applied different commands in one slot (agreement). */
        SLOT_CONFLICT,
        /** A replica applied slots out of order within one incarnation. */
        APPLY_ORDER,
        /** A replica acknowledged a write at a slot whose chosen command is a different one. */
        ACK_MISMATCH,
        /**
         * A replica acknowledged a write before it was durable where every later phase 1 must find it: fewer than
         * {@code N - Q1 + 1} disks held its entry (or a snapshot past its slot) when the reply left.
         */
        ACK_NOT_DURABLE,
        /** A watcher got events out of slot order, twice, or other than those the chosen log's applies recorded. */
        WATCH_ORDER,
        /** Two replicas that applied the same prefix hold different state. */
        STATE_DIVERGENCE,
        /** A replica's promised ballot or applied slot went backwards within one incarnation. */
        REGRESSION,
        /** The client history is not linearizable. */
        NOT_LINEARIZABLE,
        /** The linearizability checker hit its search bound: neither proven nor refuted. */
        CHECK_INCONCLUSIVE,
        /** After faults stopped, an operation did not succeed in time or a replica did not catch up. */
        LIVENESS,
        /**
         * A read returned value bytes other than those written with the state it reflects (coded mode: a
         * list's last note, checked by CRC32C against the note appended with its last element).
         */
        WRONG_VALUE,
        /** A reply the workload cannot have caused (for example an error result for an append). */
        UNEXPECTED_REPLY,
        /** The replica threw (one of its own always-on invariant checks failed) or broke the Ready contract; the description has the stack. */
        REPLICA_FAILURE,
        /** The seed needed more events or simulated time than its bounds allow. */
        BUDGET_EXHAUSTED
    }

    @Override
    public String toString() {
        return kind + " at " + timeNanos / 1_000 + "us: " + description;
    }
}
