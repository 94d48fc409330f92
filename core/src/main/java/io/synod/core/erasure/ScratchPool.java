package io.synod.core.erasure;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A small lock-free pool of {@link Scratch} blocks for the coding loops, so that coding does not
 * allocate in steady state yet needs no lock or thread-local. A caller takes a block (or gets a
 * fresh one when every pooled block is in use by other threads) and returns it when done; at most
 * {@link #SLOTS} blocks are kept.
 */
final class ScratchPool {

    /** Pooled blocks: enough for a handful of threads coding at once with one codec. */
    static final int SLOTS = 4;

    /** Working memory for one coding call over blocks of {@code blockLength} positions. */
    static final class Scratch {

        /** Packed accumulators: one long per position, a byte lane per output. */
        final long[] sums;

        /** Two blocks of bytes for XOR-ed relation terms: [0, n) and [n, 2n), n = {@link CodingLoops#SUM_BYTES}. */
        final byte[] terms;

        Scratch(int blockLength) {
            sums = new long[blockLength];
            terms = new byte[2 * CodingLoops.SUM_BYTES];
        }
    }

    private final int blockLength;
    private final AtomicReferenceArray<Scratch> slots = new AtomicReferenceArray<>(SLOTS);

    ScratchPool(int blockLength) {
        if (blockLength < 1) {
            throw new IllegalArgumentException("blockLength must be >= 1, got " + blockLength);
        }
        this.blockLength = blockLength;
    }

    Scratch take() {
        for (int slot = 0; slot < SLOTS; slot++) {
            Scratch block = slots.getAndSet(slot, null);
            if (block != null) {
                return block;
            }
        }
        return new Scratch(blockLength);
    }

    void give(Scratch block) {
        if (block.sums.length != blockLength) {
            throw new IllegalArgumentException("block of length " + block.sums.length + " does not belong to this pool");
        }
        for (int slot = 0; slot < SLOTS; slot++) {
            if (slots.compareAndSet(slot, null, block)) {
                return;
            }
        }
    }
}
