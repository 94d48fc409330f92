package io.synod.core.erasure;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A small lock-free pool of {@code long[]} accumulator blocks for the packed coding loop, so that
 * coding does not allocate in steady state yet needs no lock or thread-local. A caller takes a
 * block (or gets a fresh one when every pooled block is in use by other threads) and returns it
 * when done; at most {@link #SLOTS} blocks are kept.
 */
final class ScratchPool {

    /** Pooled blocks: enough for a handful of threads coding at once with one codec. */
    static final int SLOTS = 4;

    private final int blockLength;
    private final AtomicReferenceArray<long[]> slots = new AtomicReferenceArray<>(SLOTS);

    ScratchPool(int blockLength) {
        if (blockLength < 1) {
            throw new IllegalArgumentException("blockLength must be >= 1, got " + blockLength);
        }
        this.blockLength = blockLength;
    }

    long[] take() {
        for (int slot = 0; slot < SLOTS; slot++) {
            long[] block = slots.getAndSet(slot, null);
            if (block != null) {
                return block;
            }
        }
        return new long[blockLength];
    }

    void give(long[] block) {
        if (block.length != blockLength) {
            throw new IllegalArgumentException("block of length " + block.length + " does not belong to this pool");
        }
        for (int slot = 0; slot < SLOTS; slot++) {
            if (slots.compareAndSet(slot, null, block)) {
                return;
            }
        }
    }
}
