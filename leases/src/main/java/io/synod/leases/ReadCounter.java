package io.synod.leases;

import java.util.Arrays;

/**
 * A bounded count of the keys this replica reads most (Metwally, Agrawal, El Abbadi, "Efficient
 * computation of frequent and top-k elements in data streams", ICDT 2005: space-saving). It keeps at
 * most {@code capacity} keys (by their {@link LeaseConfiguration#keyHash}); a key not counted replaces
 * the one with the smallest count and starts from that count, so a count over-estimates by at most the
 * smallest count kept. {@link #decay()} halves every count (recent reads weigh more). Deterministic:
 * ties are broken by the hash.
 */
final class ReadCounter {
    private final long[] hashes;
    private final long[] counts;
    private int size;

    ReadCounter(int capacity) {
        if (capacity < 1 || capacity > 1 << 16) {
            throw new IllegalArgumentException("read counter capacity must be 1..65536, got " + capacity);
        }
        hashes = new long[capacity];
        counts = new long[capacity];
    }

    void count(long hash) {
        int min = -1;
        for (int i = 0; i < size; i++) {
            if (hashes[i] == hash) {
                counts[i]++;
                return;
            }
            if (min < 0 || counts[i] < counts[min] || (counts[i] == counts[min] && hashes[i] > hashes[min])) {
                min = i;
            }
        }
        if (size < hashes.length) {
            hashes[size] = hash;
            counts[size++] = 1;
            return;
        }
        hashes[min] = hash;
        counts[min]++;
    }

    /** Halves every count; keys whose count reaches 0 are forgotten. */
    void decay() {
        int kept = 0;
        for (int i = 0; i < size; i++) {
            long c = counts[i] / 2;
            if (c > 0) {
                hashes[kept] = hashes[i];
                counts[kept++] = c;
            }
        }
        size = kept;
    }

    /** Up to {@code limit} keys with the highest counts: {hash, count} pairs, highest first (ties: smaller hash). */
    long[][] top(int limit) {
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> counts[a] != counts[b] ? Long.compare(counts[b], counts[a]) : Long.compare(hashes[a], hashes[b]));
        int n = Math.min(limit, size);
        long[][] out = new long[n][];
        for (int i = 0; i < n; i++) {
            out[i] = new long[] {hashes[order[i]], counts[order[i]]};
        }
        return out;
    }

    int size() {
        return size;
    }
}
