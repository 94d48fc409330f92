package io.synod.sim;

import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KeyChange;
import io.synod.protocol.KeyChangeBatch;
import io.synod.protocol.WatchCodec;
import java.util.HashMap;
import java.util.Map;

/**
 * Watchers beside the list-append clients: each long-polls the group drivers' watch path ({@code WatchHub}) for every
 * key of the workload (the prefix {@code k}), from the position after the last event it saw, at the node it believes
 * leads, through the simulated client network (polls and answers may be lost; a poll unanswered in time is sent
 * again elsewhere from the same position). During the fault and liveness phases only; their random stream is their
 * own.
 *
 * <p>Checked on every answer (docs/lock-primitives.md, watches: "events arrive in slot order, each once"): the events
 * come in strictly increasing position (slot, index), none before the position asked from; and a position names
 * the same key whichever replica reported it, to whichever watcher (every replica applies the same log, so records
 * the same events at the same positions). A compacted answer (the replica restored a snapshot past the position)
 * moves the watcher to the slot after the answer's applied slot, as a real watcher re-reads the state and watches on.
 */
final class SimWatchers {
    static final int WATCHERS = 2;
    private static final String PREFIX = "k";
    private static final int WAIT_MILLIS = 5;
    private static final int LIMIT = 64;
    private static final long RETRY_NANOS = SimTiming.MILLIS;

    private record Position(long slot, int index) {}

    private final class Watcher {
        long fromSlot = 1;
        int fromIndex;
        int target;
        /** The poll in flight; an answer or a timeout of an older one is ignored. */
        long token;
    }

    private final Simulation sim;
    private final SimRandom random;
    private final Watcher[] watchers = new Watcher[WATCHERS];
    private final Map<Position, String> keyAt = new HashMap<>();
    private long eventsSeen;
    private long compactions;

    SimWatchers(Simulation sim, SimRandom random) {
        this.sim = sim;
        this.random = random;
    }

    void start() {
        for (int i = 0; i < watchers.length; i++) {
            Watcher w = new Watcher();
            w.target = random.nextInt(sim.nodes.length);
            watchers[i] = w;
            sim.queue.after(random.uniform(0, 5 * SimTiming.MILLIS), () -> poll(w));
        }
    }

    /** Events the watchers received (each counted once per watcher). */
    long eventsSeen() {
        return eventsSeen;
    }

    /** Compacted answers the watchers skipped ahead on. */
    long compactions() {
        return compactions;
    }

    private boolean active() {
        return sim.phase == Simulation.Phase.FAULTS || sim.phase == Simulation.Phase.LIVENESS;
    }

    private void poll(Watcher w) {
        if (!active()) {
            return;
        }
        long token = ++w.token;
        int node = w.target;
        WatchCodec.Query query = new WatchCodec.Query(PREFIX, true, w.fromSlot, w.fromIndex, LIMIT, WAIT_MILLIS);
        sim.inputs.sendWatchPoll(node, WatchCodec.encode(query), response -> onAnswer(w, token, node, query, response));
        sim.queue.after(WAIT_MILLIS * SimTiming.MILLIS + SimTiming.CLIENT_ATTEMPT_TIMEOUT_NANOS, () -> {
            if (w.token == token) {
                w.token++;
                w.target = random.otherNode(sim.nodes.length, node);
                poll(w);
            }
        });
    }

    private void onAnswer(Watcher w, long token, int node, WatchCodec.Query query, ClientFrame.Response response) {
        if (w.token != token) {
            return;
        }
        w.token++;
        if (response.status() != ClientReply.Status.OK.ordinal()) {
            int hint = response.leaderHint();
            w.target = hint >= 0 && hint < sim.nodes.length && hint != node ? hint : random.otherNode(sim.nodes.length, node);
            sim.queue.after(RETRY_NANOS, () -> poll(w));
            return;
        }
        KeyChangeBatch batch = WatchCodec.decodeBatch(response.result());
        String problem = check(query, batch, node);
        if (problem != null) {
            sim.fail(SimViolation.Kind.WATCH_ORDER, problem);
            return;
        }
        eventsSeen += batch.events().size();
        if (batch.compacted() && batch.events().isEmpty()) {
            compactions++;
            w.fromSlot = Math.max(w.fromSlot, response.slot() + 1);
            w.fromIndex = 0;
        } else {
            w.fromSlot = batch.nextSlot();
            w.fromIndex = batch.nextIndex();
        }
        poll(w);
    }

    private String check(WatchCodec.Query query, KeyChangeBatch batch, int node) {
        long slot = query.fromSlot();
        int index = query.fromIndex() - 1;
        for (KeyChange event : batch.events()) {
            if (event.slot() < slot || (event.slot() == slot && event.index() <= index)) {
                return "node " + node + " answered a watch from " + query.fromSlot() + "/" + query.fromIndex()
                        + " with event " + event.slot() + "/" + event.index() + " after " + slot + "/" + index + " ("
                        + batch.events().size() + " events in the answer)";
            }
            slot = event.slot();
            index = event.index();
            String seen = keyAt.putIfAbsent(new Position(slot, index), event.key());
            if (seen != null && !seen.equals(event.key())) {
                return "node " + node + " reported key " + event.key() + " changed at " + slot + "/" + index + ", where another"
                        + " answer reported " + seen;
            }
        }
        if (!batch.events().isEmpty() && (batch.nextSlot() < slot || (batch.nextSlot() == slot && batch.nextIndex() <= index))) {
            return "node " + node + " answered a watch with next position " + batch.nextSlot() + "/" + batch.nextIndex()
                    + " not after its last event " + slot + "/" + index;
        }
        return null;
    }
}
