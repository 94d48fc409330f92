package io.synod.core.paxos;

import io.synod.protocol.ClientReply;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The client side of a replica: requests queued while phase 1 runs or the pipeline is full, the
 * clients waiting for an answer from this replica, and the at-most-once check against the
 * replicated {@link ClientSessions} table. A command is applied once per (client id, sequence);
 * a retry is answered from the table, and a retry of a command still in flight here is answered
 * once, when it applies.
 */
final class Clients {
    private static final byte[] EMPTY = new byte[0];

    private final ReplicaContext ctx;
    private final ClientSessions sessions;
    /** Requests not yet proposed (bounded by {@link ReplicaConfig#maxPendingProposals()}). */
    final ArrayDeque<ClientRequest> pending = new ArrayDeque<>();
    /** Clients waiting for an answer from this replica: client id -> sequence. */
    private final LinkedHashMap<Long, Long> awaiting = new LinkedHashMap<>();
    /**
     * Writes answered before they applied ({@link LeaseHooks#answersWritesBeforeApply}): client id ->
     * sequence, until they apply. A retry of one waits for the apply (bounded by the in-flight window).
     */
    private final HashMap<Long, Long> answeredEarly = new HashMap<>();

    Clients(ReplicaContext ctx, ClientSessions sessions) {
        this.ctx = ctx;
        this.sessions = sessions;
    }

    void reply(Command command, ClientReply.Status status, long slot, byte[] result) {
        ctx.out.reply(new ClientReply(command.clientId(), command.sequence(), status, slot, result, ctx.replyLeaderHint()));
    }

    void reply(Command command, ClientReply.Status status) {
        reply(command, status, 0, EMPTY);
    }

    /** The answer the session table holds for an already applied {@code command}, or null if it is new. */
    ClientReply answerFromSession(Command command) {
        return sessions.answer(command);
    }

    /**
     * The at-most-once check before proposing: answers a command already applied from the session
     * table, and swallows a retry of one in flight here (it is answered when it applies). Returns
     * true if {@code command} must not be proposed.
     */
    boolean isDuplicate(Command command) {
        ClientReply known = answerFromSession(command);
        if (known != null) {
            reply(command, known.status(), known.slot(), known.result());
            return true;
        }
        Long early = answeredEarly.get(command.clientId());
        if (early != null && early == command.sequence()) {
            await(command); // Its answer was lost: it is answered again when it applies.
            return true;
        }
        return isAwaited(command);
    }

    boolean isAwaited(Command command) {
        Long awaited = awaiting.get(command.clientId());
        return awaited != null && awaited == command.sequence();
    }

    void await(Command command) {
        awaiting.put(command.clientId(), command.sequence());
    }

    /**
     * Answers a chosen write before it applies ({@link LeaseHooks#answersWritesBeforeApply}) if its
     * client waits here for exactly that command; {@code result} is what applying it will return.
     */
    void answerEarly(Command command, long slot, byte[] result) {
        if (isAwaited(command)) {
            awaiting.remove(command.clientId());
            answeredEarly.put(command.clientId(), command.sequence());
            reply(command, ClientReply.Status.OK, slot, result);
        }
    }

    /**
     * {@code command} is handed to the application: whether its client waits here for exactly it (the
     * application's answer is then delivered); it no longer waits here either way.
     */
    boolean takeAwaiting(Command command) {
        if (!answeredEarly.isEmpty()) {
            answeredEarly.remove(command.clientId(), command.sequence());
        }
        if (isAwaited(command)) {
            awaiting.remove(command.clientId());
            return true;
        }
        return false;
    }

    /** A client whose queued request was recovered by phase 1 gets its answer when it applies. */
    void awaitIfPending(Command command) {
        Iterator<ClientRequest> queued = pending.iterator();
        while (queued.hasNext()) {
            Command candidate = queued.next().command();
            if (candidate.clientId() == command.clientId() && candidate.sequence() == command.sequence()) {
                queued.remove();
                await(command);
            }
        }
    }

    /**
     * Leadership ends. Queued requests were never logged (NOT_LEADER: safe to retry anywhere);
     * requests in our log but not applied may still be chosen by the next leader (UNKNOWN: retry
     * with the same sequence, applied at most once).
     */
    void onStepDown(int newLeaderHint) {
        for (ClientRequest request : pending) {
            reply(request.command(), ClientReply.Status.NOT_LEADER);
        }
        pending.clear();
        for (Map.Entry<Long, Long> waiting : awaiting.entrySet()) {
            ctx.out.reply(new ClientReply(waiting.getKey(), waiting.getValue(), ClientReply.Status.UNKNOWN, 0, EMPTY,
                    newLeaderHint));
        }
        awaiting.clear();
        answeredEarly.clear(); // Answered OK: chosen, applied under the next leader.
    }
}
