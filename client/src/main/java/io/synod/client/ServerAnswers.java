package io.synod.client;

import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What an attempt's outcome does to its request and to what the client knows of where each group is served (on the
 * event loop, for {@link ClientEngine}): an OK completes the request and names the group's leader; a final refusal
 * fails it; a NOT_LEADER hint is followed at once (bounded: nothing was logged at the old target); NOT_HOSTED records
 * the placement and goes to a host; anything else, and a server that stays silent, forgets that server as the
 * group's leader and backs off.
 */
final class ServerAnswers {
    private final ClientEngine engine;
    private final Map<Integer, InetSocketAddress> nodes;
    private final Map<Integer, Integer> leaders;
    private final TargetPicker targets;
    private final ForwardRoutes forwardRoutes;
    private final PlacementRoutes placed;
    private final PlacementProbe probe;

    /** The maps are the engine's own (event loop state), read and updated here. */
    ServerAnswers(ClientEngine engine, Map<Integer, InetSocketAddress> nodes, Map<Integer, Integer> leaders,
            TargetPicker targets, ForwardRoutes forwardRoutes, PlacementRoutes placed, PlacementProbe probe) {
        this.engine = engine;
        this.nodes = nodes;
        this.leaders = leaders;
        this.targets = targets;
        this.forwardRoutes = forwardRoutes;
        this.placed = placed;
        this.probe = probe;
    }

    /** {@code r} answers {@code op}'s current attempt (a late or duplicate answer never gets here). */
    void onResponse(PendingOp op, ClientFrame.Response r) {
        ClientReply.Status status = r.status() >= 0 && r.status() < ClientReply.Status.values().length
                ? ClientReply.Status.values()[r.status()] : null;
        boolean atPreferred = op.target == targets.preferredReader() && !op.preferredRefused;
        if (status == ClientReply.Status.OK) {
            if (atPreferred && op.readOnly()) {
                // The preferred reader may be a follower (a quorum-lease holder): its reply names the leader.
                if (r.leaderHint() >= 0 && nodes.containsKey(r.leaderHint())) {
                    leaders.put(op.group, r.leaderHint());
                }
            } else if (op.consistency != Consistency.STALE || !op.readOnly()) {
                leaders.put(op.group, op.target);
            }
            forwardRoutes.answered(op, r, System.nanoTime());
            engine.finish(op, new ClientEngine.Reply(r.group(), r.slot(), r.result(), op.target, ServedBy.of(r.served())), null);
            return;
        }
        SynodException refusal = ClientReplies.finalRefusal(r, status, op.lane);
        if (refusal != null) {
            engine.finish(op, null, refusal);
            return;
        }
        if (r.status() == ClientFrame.STATUS_NOT_HOSTED) {
            notHosted(op, r);
            return;
        }
        op.lastProblem = status == null ? "server " + op.target + " hosts no serving replica of group " + op.group
                : "server " + op.target + " answered " + status;
        forwardRoutes.lost(op.target);
        if (status == ClientReply.Status.UNKNOWN) {
            op.maybeApplied |= !op.readOnly(); // It reached a leader's log, which lost leadership before the commit.
        }
        if (status == ClientReply.Status.NOT_LEADER && atPreferred && op.readOnly()) {
            // It holds no lease on this key now: the leader answers. The refusal may name the key's holders.
            targets.refusedByPreferred(op, r.result().length == Long.BYTES
                    ? ByteBuffer.wrap(r.result()).getLong() : -1);
        }
        if (status == ClientReply.Status.NOT_LEADER || status == ClientReply.Status.UNKNOWN || status == null) {
            if (r.leaderHint() >= 0 && r.leaderHint() != op.target && nodes.containsKey(r.leaderHint())) {
                leaders.put(op.group, r.leaderHint());
                placed.noteNode(op.group, r.leaderHint());
                probe.ask(r.leaderHint(), nodes, System.nanoTime());
                if (status == ClientReply.Status.NOT_LEADER && op.redirects++ < nodes.size()) {
                    engine.send(op); // Follow the hint at once; nothing was logged at the old target.
                    return;
                }
            } else {
                leaders.remove(op.group, op.target);
            }
        }
        engine.retryLater(op); // UNKNOWN, BUSY, no group, or a hint we already followed: back off.
    }

    /**
     * {@code op}'s server does not host its group (nothing was logged there): remember that, ask it for its placement if
     * it is newer, and send at once to the leader it names or another host (bounded like hints), else back off.
     */
    private void notHosted(PendingOp op, ClientFrame.Response r) {
        long version = r.result().length == Long.BYTES ? ByteBuffer.wrap(r.result()).getLong() : -1;
        if (placed.notHosted(op.group, op.target, version)) {
            probe.ask(op.target, nodes, System.nanoTime());
        }
        op.lastProblem = "server " + op.target + " does not host group " + op.group;
        leaders.remove(op.group, op.target);
        if (r.leaderHint() >= 0 && r.leaderHint() != op.target && nodes.containsKey(r.leaderHint())) {
            leaders.put(op.group, r.leaderHint());
        }
        if (op.redirects++ < nodes.size()) {
            engine.send(op);
        } else {
            engine.retryLater(op);
        }
    }

    /**
     * {@code op}'s server did not answer within {@code attemptTimeoutNanos}: retried like a request whose connection
     * broke, and the silent server is no longer taken for the group's leader.
     */
    void silent(PendingOp op, long attemptTimeoutNanos) {
        op.maybeApplied |= !op.readOnly(); // it may be in the silent server's log
        op.lastProblem = "server " + op.target + " did not answer within "
                + TimeUnit.NANOSECONDS.toMillis(attemptTimeoutNanos) + " ms";
        leaders.remove(op.group, op.target);
        if (op.target == targets.preferredReader()) {
            targets.preferredLost();
            op.preferredRefused = true;
        }
        engine.retryLater(op);
    }
}
