package io.synod.core.paxos;

import io.synod.core.util.Check;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.TreeMap;

/**
 * Values by slot, in slot order: the acceptor's log and the leader's window. Every Accept, Accepted and applied
 * entry looks a slot up in them, and a {@code TreeMap<Long, ...>} spent most of that in its tree walk and boxed-key
 * compares (a tenth of a group worker's profile). The slots held are nearly contiguous, so they live in a ring
 * indexed by {@code slot & (capacity - 1)}, which holds every slot from the lowest to the highest held: a lookup
 * is an array read. The ring doubles as the span grows; a span beyond {@link #MAX_RING_SPAN} (a follower that
 * missed a long stretch and then accepts far ahead) is kept in a tree instead, until it shrinks to half of it.
 * Not thread-safe, like the replica; an iterator fails fast when the map changes under it.
 */
final class SlotMap<V> {
    /** Largest span (highest slot held - lowest + 1) kept in the ring: 65,536 references (256 KiB compressed). */
    static final int MAX_RING_SPAN = 1 << 16;

    private static final int INITIAL_CAPACITY = 64;

    /** Cell {@code slot & (length - 1)} holds the value of {@code slot} for every slot in [first, last]; others null. */
    private Object[] ring = new Object[INITIAL_CAPACITY];
    /** Non-null while the span is too wide for the ring. */
    private TreeMap<Long, V> tree;
    /** Lowest and highest slot held (meaningful while size > 0). */
    private long first;
    private long last;
    private int size;
    private int modifications;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The value held for {@code slot}, or null. */
    @SuppressWarnings("unchecked")
    V get(long slot) {
        if (tree != null) {
            return tree.get(slot);
        }
        if (size == 0 || slot < first || slot > last) {
            return null;
        }
        return (V) ring[index(slot)];
    }

    /** Holds {@code value} (not null) for {@code slot}; returns the value it replaced, or null. */
    @SuppressWarnings("unchecked")
    V put(long slot, V value) {
        Check.argument(value != null, "a slot map holds no null value (slot %d)", slot);
        modifications++;
        if (tree != null) {
            V previous = tree.put(slot, value);
            if (previous == null) {
                size++;
                first = Math.min(first, slot);
                last = Math.max(last, slot);
            }
            return previous;
        }
        if (size == 0) {
            first = slot;
            last = slot;
        } else {
            long lo = Math.min(first, slot);
            long hi = Math.max(last, slot);
            long span = hi - lo + 1;
            if (span <= 0 || span > MAX_RING_SPAN) {
                toTree();
                modifications--; // counted again by the call below
                return put(slot, value);
            }
            if (span > ring.length) {
                resize(Integer.highestOneBit((int) span - 1) << 1);
            }
            first = lo;
            last = hi;
        }
        int i = index(slot);
        V previous = (V) ring[i];
        ring[i] = value;
        if (previous == null) {
            size++;
        }
        return previous;
    }

    /** The lowest slot held; the map must not be empty. */
    long firstSlot() {
        requireNotEmpty();
        return first;
    }

    /** The highest slot held; the map must not be empty. */
    long lastSlot() {
        requireNotEmpty();
        return last;
    }

    /** Removes and returns the value of the lowest slot held, or null when empty. */
    V pollFirst() {
        if (size == 0) {
            return null;
        }
        V value = get(first);
        removeThrough(first);
        return value;
    }

    /** Removes every slot at or below {@code slot}. */
    void removeThrough(long slot) {
        if (size == 0 || slot < first) {
            return;
        }
        modifications++;
        if (tree != null) {
            tree.headMap(slot, true).clear();
            size = tree.size();
            if (size > 0) {
                first = tree.firstKey();
            }
            maybeBackToRing();
            return;
        }
        if (slot >= last) {
            clearRing();
            return;
        }
        for (long s = first; s <= slot; s++) {
            int i = index(s);
            if (ring[i] != null) {
                ring[i] = null;
                size--;
            }
        }
        first = slot + 1;
        while (ring[index(first)] == null) {
            first++; // size > 0 here: a value is held at last
        }
    }

    void clear() {
        modifications++;
        if (tree != null) {
            tree = null; // the ring is empty while the tree holds the values
            size = 0;
            return;
        }
        clearRing();
    }

    /** The values held at or above {@code from}, in slot order (a live view; an iterator fails fast on a change). */
    Iterable<V> valuesFrom(long from) {
        return () -> tree != null ? checked(tree.tailMap(from, true).values().iterator()) : new RingIterator(from);
    }

    /** Every value held, in slot order (a live view). */
    Iterable<V> values() {
        return valuesFrom(Long.MIN_VALUE);
    }

    private int index(long slot) {
        return (int) (slot & (ring.length - 1));
    }

    private void requireNotEmpty() {
        if (size == 0) {
            throw new NoSuchElementException("the slot map is empty");
        }
    }

    private void clearRing() {
        if (size > 0 && tree == null) {
            for (long s = first; s <= last; s++) {
                ring[index(s)] = null;
            }
        }
        size = 0;
    }

    @SuppressWarnings("unchecked")
    private void resize(int capacity) {
        Object[] old = ring;
        Object[] next = new Object[Math.max(capacity, INITIAL_CAPACITY)];
        if (size > 0) {
            for (long s = first; s <= last; s++) {
                Object v = old[(int) (s & (old.length - 1))];
                if (v != null) {
                    next[(int) (s & (next.length - 1))] = v;
                }
            }
        }
        ring = next;
    }

    @SuppressWarnings("unchecked")
    private void toTree() {
        TreeMap<Long, V> t = new TreeMap<>();
        for (long s = first; s <= last; s++) {
            Object v = ring[index(s)];
            if (v != null) {
                t.put(s, (V) v);
            }
        }
        clearRing();
        size = t.size();
        tree = t;
    }

    /** Back to the ring once the span is half the ring's bound (a hysteresis: no flapping at the bound). */
    private void maybeBackToRing() {
        if (size > 0 && tree.lastKey() - tree.firstKey() + 1 > MAX_RING_SPAN / 2) {
            return;
        }
        TreeMap<Long, V> t = tree;
        tree = null;
        size = 0;
        ring = new Object[INITIAL_CAPACITY];
        for (var e : t.entrySet()) {
            put(e.getKey(), e.getValue());
        }
    }

    private Iterator<V> checked(Iterator<V> inner) {
        int expected = modifications;
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                check(expected);
                return inner.hasNext();
            }

            @Override
            public V next() {
                check(expected);
                return inner.next();
            }
        };
    }

    private void check(int expected) {
        if (modifications != expected) {
            throw new ConcurrentModificationException("the slot map changed during an iteration");
        }
    }

    /** Walks the ring's cells from a slot to the highest held, skipping empty ones. */
    private final class RingIterator implements Iterator<V> {
        private final int expected = modifications;
        private long next;

        RingIterator(long from) {
            next = size == 0 ? 1 : Math.max(from, first);
            long end = size == 0 ? 0 : last;
            advance(end);
        }

        private void advance(long end) {
            while (next <= end && ring[index(next)] == null) {
                next++;
            }
        }

        @Override
        public boolean hasNext() {
            check(expected);
            return size > 0 && next <= last;
        }

        @Override
        @SuppressWarnings("unchecked")
        public V next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            V value = (V) ring[index(next)];
            next++;
            advance(last);
            return value;
        }
    }
}
