package io.synod.server.group.driver;

import io.synod.core.paxos.Replica;
import io.synod.core.paxos.Role;
import io.synod.core.paxos.StateMachine;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * A group's STALE reads, answered by its driver from the local state at the applied slot, leader
 * or not. A read of a deferred key that holds no bytes here yet (coded groups, docs/erasure.md rule 4)
 * is parked until the rebuild that started for it is done, never answered from the placeholder; parked
 * reads are bounded in number ({@link #MAX_PARKED_READS}) and time ({@link #PARKED_READ_NANOS}, then BUSY).
 * Time is passed in (the runner's clock, a test's fake).
 */
final class StaleReads {
    static final int MAX_PARKED_READS = 1024;
    /** A parked STALE read gives up (BUSY) after this long: the rebuild needs X shards from peers. */
    static final long PARKED_READ_NANOS = TimeUnit.SECONDS.toNanos(10);

    private record ParkedRead(ClientFrame.StaleRead read, Responder responder, long parkedNanos) {}

    private final int group;
    private final Replica replica;
    private final StateMachine localState;
    private final GroupMetrics metrics;
    /** STALE reads waiting for the deferred values they read to be rebuilt, oldest first (bounded). */
    private final ArrayDeque<ParkedRead> parkedReads = new ArrayDeque<>();

    StaleReads(int group, Replica replica, StateMachine localState, GroupMetrics metrics) {
        this.group = group;
        this.replica = replica;
        this.localState = localState;
        this.metrics = metrics;
    }

    void read(ClientFrame.StaleRead read, boolean readOnly, Responder responder, long nowNanos) {
        int leader = leader();
        try {
            if (!readOnly) {
                throw new IllegalArgumentException("a STALE read must be a read-only command");
            }
            if (!replica.resolvedForRead(read.payload())) {
                // Deferred rebuild: a key it reads holds no bytes here yet. Its rebuild started (recovery reads);
                // answer once it is done, never from the placeholder (docs/erasure.md, rule 4).
                if (parkedReads.size() >= MAX_PARKED_READS) {
                    responder.respond(new ClientFrame.Response(read.requestId(), group,
                            ClientReply.Status.BUSY.ordinal(), 0, leader, new byte[0]));
                } else {
                    parkedReads.add(new ParkedRead(read, responder, nowNanos));
                }
                return;
            }
            byte[] result = localState.read(read.payload());
            responder.respond(new ClientFrame.Response(read.requestId(), group, ClientReply.Status.OK.ordinal(),
                    replica.appliedSlot(), leader, result, ClientFrame.SERVED_LOCAL));
        } catch (IllegalArgumentException e) {
            responder.respond(new ClientFrame.Response(read.requestId(), group, ClientReply.Status.REJECTED.ordinal(),
                    0, leader, String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8)));
        }
    }

    /** Answers the parked STALE reads whose keys are resolved now; those waiting too long get BUSY. */
    void retryParked(long now) {
        if (parkedReads.isEmpty()) {
            return;
        }
        for (int i = parkedReads.size(); i > 0; i--) {
            ParkedRead p = parkedReads.poll();
            if (localState.unresolvedSlotsFor(p.read().payload()).length == 0) {
                read(p.read(), true, p.responder(), now); // parked only after the read-only check
            } else if (now - p.parkedNanos() > PARKED_READ_NANOS) {
                metrics.parkedReadTimeouts.increment();
                p.responder().respond(new ClientFrame.Response(p.read().requestId(), group,
                        ClientReply.Status.BUSY.ordinal(), 0, leader(), new byte[0]));
            } else {
                parkedReads.add(p);
            }
        }
    }

    private int leader() {
        return replica.role() == Role.LEADER ? replica.nodeId() : replica.leaderHint();
    }
}
