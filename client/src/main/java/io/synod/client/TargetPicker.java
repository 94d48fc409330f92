package io.synod.client;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Routing for the {@link ClientEngine}: which server a request goes to, given the known servers and
 * the leader last seen for each group. Touched only on the engine's event loop.
 */
final class TargetPicker {
    private int staleCursor = ThreadLocalRandom.current().nextInt(1 << 16);

    /** The group's leader if known; otherwise (and for STALE reads) the servers in turn; -1 if none is known. */
    int pick(PendingOp op, Map<Integer, InetSocketAddress> nodes, Map<Integer, Integer> leaders) {
        if (nodes.isEmpty()) {
            return -1;
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
}
