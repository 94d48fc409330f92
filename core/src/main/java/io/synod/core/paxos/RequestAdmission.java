package io.synod.core.paxos;

import io.synod.core.kv.ReservedKeys;
import io.synod.protocol.ClientReply;
import java.nio.charset.StandardCharsets;

/**
 * What a replica does with a client request: it refuses what the log must not carry (commands in the client ids
 * reserved for configuration changes and for the replicas' own commands, oversize or invalid payloads), answers a
 * read from the applied state where the lease policy vouches for it, and otherwise proposes the command (a leader
 * with room in its window), queues it (bounded), or tells the client who leads.
 */
final class RequestAdmission {
    private final ReplicaContext ctx;
    private final Clients clients;
    private final Learner learner;
    private final Applier applier;
    private final Leader leader;
    private final LeaseHooks leases;
    private long localReadsServed;

    RequestAdmission(ReplicaContext ctx, Clients clients, Learner learner, Applier applier, Leader leader, LeaseHooks leases) {
        this.ctx = ctx;
        this.clients = clients;
        this.learner = learner;
        this.applier = applier;
        this.leader = leader;
        this.leases = leases;
    }

    /** Handles {@code request}; its answer goes through {@link Clients}, now or once its slot applies. */
    void admit(ClientRequest request) {
        Command command = request.command();
        int maxBytes = ctx.config.maxCommandBytes();
        if (Coding.isChange(command) || GroupMembership.isChange(command)) {
            clients.reply(command, ClientReply.Status.REJECTED, 0, utf8("client id " + command.clientId()
                    + " is reserved for " + (Coding.isChange(command) ? "coding" : "membership") + " changes"));
            return;
        }
        if (command.clientId() == ReservedKeys.CLIENT_ID) {
            clients.reply(command, ClientReply.Status.REJECTED, 0, utf8("client id " + command.clientId()
                    + " is reserved for the replicas' own commands (lease configurations)"));
            return;
        }
        if (command.payload().length > maxBytes) {
            clients.reply(command, ClientReply.Status.REJECTED, 0, utf8("command of " + command.payload().length
                    + " bytes exceeds the limit of " + maxBytes));
            return;
        }
        try {
            applier.validate(command.payload());
        } catch (IllegalArgumentException e) {
            clients.reply(command, ClientReply.Status.REJECTED, 0, utf8(String.valueOf(e.getMessage())));
            return;
        }
        if (ctx.role == Role.FOLLOWER) {
            // A quorum-lease holder (Moraru §3) reads locally; the policy vouches for the applied state.
            if (!servedLocally(command)) {
                clients.reply(command, ClientReply.Status.NOT_LEADER);
            }
            return;
        }
        if (clients.isDuplicate(command)) {
            return;
        }
        if (ctx.role == Role.LEADER && learner.appliedSlot() == learner.commitSlot() && servedLocally(command)) {
            return;
        }
        if (ctx.role == Role.LEADER && !leases.mayAcceptProposals(ctx.nowNanos)) {
            clients.reply(command, ClientReply.Status.BUSY);
            return;
        }
        if (ctx.role == Role.LEADER && clients.pending.isEmpty() && leader.windowHasRoom()) {
            leader.propose(command);
            return;
        }
        if (clients.pending.size() >= ctx.config.maxPendingProposals()) {
            clients.reply(command, ClientReply.Status.BUSY);
            return;
        }
        clients.pending.add(request);
    }

    /**
     * Answers {@code command} from the applied state if it is a read the lease policy lets this replica serve
     * locally; returns whether it did. A read of a deferred key that is not rebuilt yet goes through the log
     * instead: applying it waits for the rebuild.
     */
    private boolean servedLocally(Command command) {
        if (applier.isReadOnly(command.payload()) && leases.mayServeLocalRead(ctx.role, command, ctx.nowNanos)
                && learner.resolvedForRead(command.payload())) {
            localReadsServed++;
            clients.reply(command, ClientReply.Status.OK, learner.appliedSlot(), applier.read(command.payload()));
            return true;
        }
        return false;
    }

    /** Reads answered from this replica's own state because its lease policy allowed it. */
    long localReadsServed() {
        return localReadsServed;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
