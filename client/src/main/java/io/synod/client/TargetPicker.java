package io.synod.client;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Routing for the {@link ClientEngine}: which server a request goes to, given the known servers and
 * the leader last seen for each group. Touched only on the engine's event loop.
 *
 * <p>With a preferred reader ({@link SynodClient.Builder#readFrom}), LINEARIZABLE reads go to that
 * replica first: under quorum leases it answers a key it holds a lease on locally, and otherwise
 * answers NOT_LEADER with the leader's id, which the engine follows. The refusal names the key's lease
 * holders (its result: a u64 bit set, bit i = node i). The picker remembers refused keys so their
 * reads stop paying the extra hop: a key the replica does not hold for {@link #NOT_HOLDER_FOR_NANOS}
 * (with {@code lease=quorum-auto} the configuration follows the reads a replica is asked for), a key
 * it holds but could not serve just now
 * (a pending write, promises being renewed) for {@link #BUSY_HOLDER_FOR_NANOS}, and a refusal without
 * holders (an older server) for {@link #REFUSED_FOR_NANOS}. The memory is bounded ({@link #MAX_REFUSED}).
 */
final class TargetPicker {
    /** How long a key the preferred reader refused, without saying who holds it, goes straight to the leader. */
    static final long REFUSED_FOR_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * How long a key the preferred reader does not hold goes straight to the leader. Short: with automatic
     * lease assignment ({@code lease=quorum-auto}) a replica becomes a key's holder because it is asked for
     * that key (it counts the reads that reach it and reports them to the leader), so a client must keep
     * asking it now and then; the cost is one extra hop per key every 2 s.
     */
    static final long NOT_HOLDER_FOR_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** How long a key the preferred reader holds but refused goes straight to the leader. */
    static final long BUSY_HOLDER_FOR_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How long the preferred reader is skipped after its connection failed. */
    static final long DOWN_FOR_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Keys remembered as refused at most (the oldest is forgotten first). */
    static final int MAX_REFUSED = 4096;

    private int staleCursor = ThreadLocalRandom.current().nextInt(1 << 16);
    /** The replica LINEARIZABLE reads try first, or -1. */
    private final int preferredReader;
    private final LinkedHashMap<String, Long> refusedUntil = new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > MAX_REFUSED;
        }
    };
    private final LongSupplier clock;
    private long preferredDownUntil;
    private boolean preferredDown;

    TargetPicker() {
        this(-1);
    }

    TargetPicker(int preferredReader) {
        this(preferredReader, System::nanoTime);
    }

    /** {@code clock}: monotonic nanoseconds (tests pass their own). */
    TargetPicker(int preferredReader, LongSupplier clock) {
        this.preferredReader = preferredReader;
        this.clock = clock;
    }

    int preferredReader() {
        return preferredReader;
    }

    /** {@link #pick(PendingOp, Map, Map, PlacementRoutes)} knowing no placement (every node hosts every group). */
    int pick(PendingOp op, Map<Integer, InetSocketAddress> nodes, Map<Integer, Integer> leaders) {
        return pick(op, nodes, leaders, new PlacementRoutes());
    }

    /**
     * The group's leader if known (a hint is followed even to a node the placement known does not put in the group:
     * the leader's replica may be moving away, or the placement known may be old); otherwise (and for STALE reads) the
     * nodes hosting the group in turn, every known node if none of them is known; -1 if no node is known. The preferred
     * reader is tried only if it hosts the group.
     */
    int pick(PendingOp op, Map<Integer, InetSocketAddress> nodes, Map<Integer, Integer> leaders, PlacementRoutes placed) {
        if (nodes.isEmpty()) {
            return -1;
        }
        if (triesPreferred(op, nodes)) {
            if (placed.hosts(op.group, preferredReader)) {
                return preferredReader;
            }
            placed.preferredOutside(op.group, preferredReader, clock.getAsLong());
        }
        if (op.consistency != Consistency.STALE || !op.readOnly()) {
            Integer leader = leaders.get(op.group);
            if (leader != null && nodes.containsKey(leader)) {
                return leader;
            }
        }
        List<Integer> ids = new ArrayList<>();
        for (int n : nodes.keySet()) {
            if (placed.hosts(op.group, n)) {
                ids.add(n);
            }
        }
        if (ids.isEmpty()) {
            ids.addAll(nodes.keySet()); // none of its hosts is known (yet): try every node, as without a placement
        }
        ids.sort(null);
        int start = op.consistency == Consistency.STALE ? staleCursor++ : op.attempts;
        return ids.get(Math.floorMod(start + op.attempts, ids.size()));
    }

    /** A LINEARIZABLE read not yet refused by the preferred reader, whose key it did not refuse lately. */
    private boolean triesPreferred(PendingOp op, Map<Integer, InetSocketAddress> nodes) {
        if (preferredReader < 0 || op.watch || !op.readOnly() || op.consistency != Consistency.LINEARIZABLE
                || op.preferredRefused || !nodes.containsKey(preferredReader)) {
            return false;
        }
        long now = clock.getAsLong();
        if (preferredDown && now - preferredDownUntil < 0) {
            return false;
        }
        preferredDown = false;
        Long until = refusedUntil.get(key(op));
        if (until != null) {
            if (now - until < 0) {
                return false;
            }
            refusedUntil.remove(key(op));
        }
        return true;
    }

    /**
     * The preferred reader did not serve {@code op}: ask the leader. {@code holders}: the key's lease
     * holders the refusal named (bit i = node i), or -1 if it named none.
     */
    void refusedByPreferred(PendingOp op, long holders) {
        op.preferredRefused = true;
        long memory = holders < 0 ? REFUSED_FOR_NANOS
                : (holders & (1L << preferredReader)) == 0 ? NOT_HOLDER_FOR_NANOS : BUSY_HOLDER_FOR_NANOS;
        refusedUntil.put(key(op), clock.getAsLong() + memory);
    }

    /** How long reads of {@code op}'s key skip the preferred reader from now, in nanoseconds (0: they do not; tests). */
    long skipsPreferredFor(PendingOp op) {
        Long until = refusedUntil.get(key(op));
        return until == null ? 0 : Math.max(0, until - clock.getAsLong());
    }

    /** The connection to the preferred reader failed: send reads elsewhere for a while. */
    void preferredLost() {
        preferredDown = true;
        preferredDownUntil = clock.getAsLong() + DOWN_FOR_NANOS;
    }

    /** Keys remembered as refused (tests). */
    int refusedKeys() {
        return refusedUntil.size();
    }

    private static String key(PendingOp op) {
        return op.group + "/" + new String(op.routingKey, StandardCharsets.ISO_8859_1);
    }
}
