package io.synod.client;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Routing for the {@link ClientEngine}: which server a request goes to, given the known servers and
 * the leader last seen for each group. Touched only on the engine's event loop.
 *
 * <p>With a preferred reader ({@link SynodClient.Builder#readFrom}), LINEARIZABLE reads go to that
 * replica first: under quorum leases it answers a key it holds a lease on locally, and otherwise
 * answers NOT_LEADER with the leader's id, which the engine follows. The picker remembers, for a
 * while ({@link #REFUSED_FOR_NANOS}), the keys the preferred replica refused, so reads of keys it does
 * not hold stop paying the extra hop; after that it asks again (a refusal can be temporary: a
 * pending write to the key, promises being renewed). The memory is bounded ({@link #MAX_REFUSED}).
 */
final class TargetPicker {
    /** How long a key the preferred reader refused goes straight to the leader. */
    static final long REFUSED_FOR_NANOS = TimeUnit.SECONDS.toNanos(1);
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
    private long preferredDownUntil;
    private boolean preferredDown;

    TargetPicker() {
        this(-1);
    }

    TargetPicker(int preferredReader) {
        this.preferredReader = preferredReader;
    }

    int preferredReader() {
        return preferredReader;
    }

    /** The group's leader if known; otherwise (and for STALE reads) the servers in turn; -1 if none is known. */
    int pick(PendingOp op, Map<Integer, InetSocketAddress> nodes, Map<Integer, Integer> leaders) {
        if (nodes.isEmpty()) {
            return -1;
        }
        if (triesPreferred(op, nodes)) {
            return preferredReader;
        }
        if (op.consistency != Consistency.STALE || !op.readOnly()) {
            Integer leader = leaders.get(op.group);
            if (leader != null && nodes.containsKey(leader)) {
                return leader;
            }
        }
        List<Integer> ids = new ArrayList<>(nodes.keySet());
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
        long now = System.nanoTime();
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

    /** The preferred reader did not serve {@code op} (it does not hold the key's lease now): ask the leader. */
    void refusedByPreferred(PendingOp op) {
        op.preferredRefused = true;
        refusedUntil.put(key(op), System.nanoTime() + REFUSED_FOR_NANOS);
    }

    /** The connection to the preferred reader failed: send reads elsewhere for a while. */
    void preferredLost() {
        preferredDown = true;
        preferredDownUntil = System.nanoTime() + DOWN_FOR_NANOS;
    }

    /** Keys remembered as refused (tests). */
    int refusedKeys() {
        return refusedUntil.size();
    }

    private static String key(PendingOp op) {
        return op.group + "/" + new String(op.routingKey, StandardCharsets.ISO_8859_1);
    }
}
