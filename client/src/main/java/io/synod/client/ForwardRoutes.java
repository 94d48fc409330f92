package io.synod.client;

import io.synod.protocol.ClientFrame;
import java.util.HashMap;
import java.util.Map;

/**
 * Which groups this client reaches through a server that forwards to their leader
 * ({@link ClientFrame#FLAG_FORWARD}), because the leader itself did not answer it. A request is sent
 * with the flag after a failed attempt (the leader a server named may be out of this client's reach),
 * and, for {@link #HOLD_NANOS} after a forwarded answer, every request of that group to the server
 * that forwarded it: without that each one would first be redirected to the unreachable leader again.
 * Once the hold ends a request goes without the flag, so a client whose link to the leader is back
 * returns to it (one more failed attempt per hold while it is not). Touched only on the engine's event loop.
 */
final class ForwardRoutes {
    static final long HOLD_NANOS = 1_000_000_000L;

    private record Route(int via, long untilNanos) {}

    private final Map<Integer, Route> routes = new HashMap<>();

    /** Whether {@code op}'s attempt to {@code target} asks that server to forward it. */
    boolean forward(PendingOp op, int target, long nowNanos) {
        if (op.attempts > 0) {
            return true;
        }
        Route route = routes.get(op.group);
        return route != null && route.via() == target && nowNanos - route.untilNanos() < 0;
    }

    /** An OK answer to {@code op}, sent with the flag: if another node than its target answered, it was forwarded. */
    void answered(PendingOp op, ClientFrame.Response r, long nowNanos) {
        if (op.forward && r.leaderHint() >= 0 && r.leaderHint() != op.target) {
            routes.put(op.group, new Route(op.target, nowNanos + HOLD_NANOS));
        }
    }

    /** {@code node} failed or refused: stop forwarding through it. */
    void lost(int node) {
        routes.values().removeIf(route -> route.via() == node);
    }
}
