package io.synod.core.paxos;

import java.util.Arrays;

/**
 * The storage of {@link ClientSessions}: client id to (sequence, slot, result), ordered by last write, eldest
 * first. Entries live in parallel arrays indexed by an entry number and linked in write order; the ids are found
 * through an open-addressed table of entry numbers (linear probing, deletion by backward shift, so no tombstones).
 * A lookup boxes nothing and a write to a known client updates its entry in place, where a
 * {@code LinkedHashMap<Long, Session>} boxed the id on every call and allocated a node and a record per write.
 * Not thread-safe: one replica's thread owns it.
 */
final class SessionTable {
    private static final int NONE = -1;
    private static final int INITIAL_ENTRIES = 16;

    private long[] clients = new long[INITIAL_ENTRIES];
    private long[] sequences = new long[INITIAL_ENTRIES];
    private long[] slots = new long[INITIAL_ENTRIES];
    private byte[][] results = new byte[INITIAL_ENTRIES][];
    /** Write order: the next older and younger entry, or NONE. A free entry's {@code younger} links the free list. */
    private int[] older = new int[INITIAL_ENTRIES];
    private int[] younger = new int[INITIAL_ENTRIES];
    /** Entry number + 1 per table cell (0: empty); the length is a power of two, at least twice the entries. */
    private int[] cells = new int[2 * INITIAL_ENTRIES];
    private int eldest = NONE;
    private int youngest = NONE;
    private int free = NONE;
    /** Entries ever handed out (those below it are in use or on the free list). */
    private int used;
    private int size;

    int size() {
        return size;
    }

    /** The entry of {@code client}, or -1. */
    int find(long client) {
        int mask = cells.length - 1;
        for (int i = home(client, mask); ; i = (i + 1) & mask) {
            int e = cells[i] - 1;
            if (e < 0) {
                return NONE;
            }
            if (clients[e] == client) {
                return e;
            }
        }
    }

    long client(int e) {
        return clients[e];
    }

    long sequence(int e) {
        return sequences[e];
    }

    long slot(int e) {
        return slots[e];
    }

    byte[] result(int e) {
        return results[e];
    }

    ClientSessions.Session session(int e) {
        return new ClientSessions.Session(sequences[e], slots[e], results[e]);
    }

    /** The eldest entry, or -1 when empty; {@link #younger} walks on in write order. */
    int eldest() {
        return eldest;
    }

    /** The entry written after {@code e}, or -1. */
    int younger(int e) {
        return younger[e];
    }

    /** The client written longest ago, or 0 when empty. */
    long eldestClient() {
        return eldest == NONE ? 0 : clients[eldest];
    }

    /**
     * Sets {@code client}'s values. A new client becomes the youngest; a known one becomes the youngest when
     * {@code touch} (a remove and put of a map ordered by insertion), else keeps its place (a map's plain put).
     */
    void put(long client, long sequence, long slot, byte[] result, boolean touch) {
        int e = find(client);
        if (e < 0) {
            e = allocate();
            clients[e] = client;
            insertCell(e);
            link(e);
            size++;
        } else if (touch && e != youngest) {
            unlink(e);
            link(e);
        }
        sequences[e] = sequence;
        slots[e] = slot;
        results[e] = result;
    }

    void removeEldest() {
        int e = eldest;
        if (e == NONE) {
            return;
        }
        removeCell(e);
        unlink(e);
        results[e] = null;
        younger[e] = free;
        free = e;
        size--;
    }

    void clear() {
        Arrays.fill(cells, 0);
        Arrays.fill(results, null);
        eldest = NONE;
        youngest = NONE;
        free = NONE;
        used = 0;
        size = 0;
    }

    private static int home(long client, int mask) {
        long h = client * 0x9E3779B97F4A7C15L; // Fibonacci hashing: ids that differ in any bits spread over the cells.
        return (int) (h ^ (h >>> 32)) & mask;
    }

    private int allocate() {
        if (free != NONE) {
            int e = free;
            free = younger[e];
            return e;
        }
        if (used == clients.length) {
            int n = clients.length * 2;
            clients = Arrays.copyOf(clients, n);
            sequences = Arrays.copyOf(sequences, n);
            slots = Arrays.copyOf(slots, n);
            results = Arrays.copyOf(results, n);
            older = Arrays.copyOf(older, n);
            younger = Arrays.copyOf(younger, n);
        }
        if (2 * (size + 1) > cells.length) {
            rehash(cells.length * 2);
        }
        return used++;
    }

    private void rehash(int length) {
        cells = new int[length];
        for (int e = eldest; e != NONE; e = younger[e]) {
            insertCell(e);
        }
    }

    private void insertCell(int e) {
        int mask = cells.length - 1;
        int i = home(clients[e], mask);
        while (cells[i] != 0) {
            i = (i + 1) & mask;
        }
        cells[i] = e + 1;
    }

    /** Empties {@code e}'s cell and moves later cells of its probe run back, so every lookup still ends at a gap. */
    private void removeCell(int e) {
        int mask = cells.length - 1;
        int gap = home(clients[e], mask);
        while (cells[gap] != e + 1) {
            gap = (gap + 1) & mask;
        }
        for (int i = (gap + 1) & mask; cells[i] != 0; i = (i + 1) & mask) {
            int h = home(clients[cells[i] - 1], mask);
            // The entry at i may fill the gap if its home is not in the cyclic range (gap, i].
            if (((i - h) & mask) >= ((i - gap) & mask)) {
                cells[gap] = cells[i];
                gap = i;
            }
        }
        cells[gap] = 0;
    }

    private void link(int e) {
        older[e] = youngest;
        younger[e] = NONE;
        if (youngest != NONE) {
            younger[youngest] = e;
        } else {
            eldest = e;
        }
        youngest = e;
    }

    private void unlink(int e) {
        if (older[e] != NONE) {
            younger[older[e]] = younger[e];
        } else {
            eldest = younger[e];
        }
        if (younger[e] != NONE) {
            older[younger[e]] = older[e];
        } else {
            youngest = older[e];
        }
    }
}
