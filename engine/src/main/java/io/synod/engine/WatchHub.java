package io.synod.engine;

import io.synod.core.kv.KvWatchLog;
import io.synod.core.paxos.Replica;
import io.synod.core.paxos.Role;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KeyChange;
import io.synod.protocol.KeyChangeBatch;
import io.synod.protocol.WatchCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * Watch delivery for one group, in its driver: a watch poll reads the events of a key or prefix from the
 * replica's {@link KvWatchLog} from the position it names; if there are none yet, the poll is held until an applied
 * command records one or its wait ends (long polling: the client sends the next poll from the position the answer
 * names, so events arrive in slot order, each once, and a reconnect or a leader change resumes from that position on
 * whichever replica leads, since every replica records the same events at the same positions). Only the leader
 * answers (others say NOT_LEADER with their hint), so a watcher sees what was committed and applied at the leader.
 * Bounded: at most {@link #MAX_HELD} polls are held per group (more are answered BUSY); each client connection has
 * the server's per-connection in-flight bound; an answer carries at most the query's limit.
 */
final class WatchHub {
    /** Most polls held at once in one group. */
    static final int MAX_HELD = 4096;

    private record Held(long requestId, WatchCodec.Query query, Responder responder, long deadlineNanos) {}

    private final int group;
    private final KvWatchLog log;
    /** The negative control {@link DriverControls.Bug#WATCH_OUT_OF_ORDER}: answers carry their events reversed. */
    private final boolean reversed;
    private final List<Held> held = new ArrayList<>();
    private int lastSize = -1;
    private long lastSeenSlot = -1;

    WatchHub(int group, KvWatchLog log, boolean reversed) {
        this.group = group;
        this.log = log;
        this.reversed = reversed;
    }

    /** A poll arrived. */
    void poll(ClientFrame.WatchPoll poll, Responder responder, Replica replica, boolean serving, long nowNanos) {
        WatchCodec.Query query;
        try {
            query = WatchCodec.decodeQuery(poll.query());
        } catch (IllegalArgumentException e) {
            responder.respond(new ClientFrame.Response(poll.requestId(), group, ClientReply.Status.REJECTED.ordinal(), 0,
                    replica.leaderHint(), ("bad watch query: " + e.getMessage()).getBytes(StandardCharsets.UTF_8)));
            return;
        }
        if (!serving || replica.role() != Role.LEADER) {
            responder.respond(new ClientFrame.Response(poll.requestId(), group,
                    ClientReply.Status.NOT_LEADER.ordinal(), 0, replica.leaderHint(), new byte[0]));
            return;
        }
        Held h = new Held(poll.requestId(), query, responder, nowNanos + query.waitMillis() * 1_000_000L);
        if (!answerIfReady(h, replica, nowNanos)) {
            if (held.size() >= MAX_HELD) {
                responder.respond(new ClientFrame.Response(poll.requestId(), group, ClientReply.Status.BUSY.ordinal(), 0,
                        replica.nodeId(), new byte[0]));
                return;
            }
            held.add(h);
        }
    }

    /** After each pass: answer the held polls that have events now, whose wait ended, or whose replica stopped leading. */
    void afterPass(Replica replica, boolean serving, long nowNanos) {
        if (held.isEmpty()) {
            return;
        }
        boolean leading = serving && replica.role() == Role.LEADER;
        boolean grew = log.size() != lastSize || replica.appliedSlot() != lastSeenSlot;
        lastSize = log.size();
        lastSeenSlot = replica.appliedSlot();
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (!leading) {
                h.responder().respond(new ClientFrame.Response(h.requestId(), group,
                        ClientReply.Status.NOT_LEADER.ordinal(), 0, replica.leaderHint(), new byte[0]));
                it.remove();
            } else if ((grew || nowNanos - h.deadlineNanos() >= 0) && answerIfReady(h, replica, nowNanos)) {
                it.remove();
            }
        }
    }

    /** Answers {@code h} if it has events, is compacted, or its wait is over. */
    private boolean answerIfReady(Held h, Replica replica, long nowNanos) {
        WatchCodec.Query q = h.query();
        KeyChangeBatch batch = log.read(q.fromSlot(), q.fromIndex(), q.key(), q.prefix(), q.limit());
        if (batch.events().isEmpty() && !batch.compacted() && nowNanos - h.deadlineNanos() < 0) {
            return false;
        }
        if (reversed && batch.events().size() > 1) {
            List<KeyChange> events = new ArrayList<>(batch.events());
            Collections.reverse(events);
            batch = new KeyChangeBatch(events, batch.nextSlot(), batch.nextIndex(), batch.compacted());
        }
        h.responder().respond(new ClientFrame.Response(h.requestId(), group, ClientReply.Status.OK.ordinal(),
                replica.appliedSlot(), replica.nodeId(), WatchCodec.encode(batch)));
        return true;
    }

    /** The group stops: every held poll is told there is no group here now. */
    void failAll() {
        for (Held h : held) {
            h.responder().respond(new ClientFrame.Response(h.requestId(), group, ClientFrame.STATUS_NO_GROUP,
                    0, -1, new byte[0]));
        }
        held.clear();
    }

    int heldCount() {
        return held.size();
    }
}
