package io.synod.core.paxos;

import io.synod.protocol.ClientReply;
import java.util.ArrayList;
import java.util.List;

/**
 * The application side of a replica, and the only class of this package that calls the
 * {@link StateMachine} (the rest sees the {@link AppliedState}): applies the entries a {@link Ready}
 * hands out ({@link Ready#committed()}) in slot order, with the at-most-once check against the
 * {@link ClientSessions} table, and returns the answers for the clients that wait at this replica. The
 * replica never applies through it: the runtime does, once per Ready, right after taking it and before
 * any further input ({@link ReadyLoop}), then tells the replica with {@link Replica#applied(Ready)}.
 *
 * <p>The replica asks it only what a request answered without the log needs, at the moment it is
 * answered: whether a payload is valid ({@link #validate}), whether it only reads and what it reads
 * (a lease-local read, {@link #isReadOnly}, {@link #read}), and a quorum-lease leader's early write
 * answer ({@link #resultBeforeApply}).
 *
 * <p>The at-most-once decision is made here, at apply time, because it depends on every earlier command
 * being applied: the same (client, sequence) may be chosen in two slots (a retry re-proposed by a later
 * leader), possibly handed out in one Ready; only the table after the first tells that the second is a
 * duplicate. No-ops, membership and coding changes are protocol entries the replica put in force itself when
 * it handed them out; a change is only recorded here for a durable state machine
 * ({@link StateMachine#applyMembershipChange}, {@link StateMachine#applyCodingChange}).
 */
public final class Applier {
    private final ReplicaContext ctx;
    private final StateMachine stateMachine;
    private final ClientSessions sessions;

    Applier(ReplicaContext ctx, StateMachine stateMachine, ClientSessions sessions) {
        this.ctx = ctx;
        this.stateMachine = stateMachine;
        this.sessions = sessions;
    }

    /** The application this applier applies to (for the runtime's read path and observation). */
    public StateMachine stateMachine() {
        return stateMachine;
    }

    /** Refuses garbage at the door ({@link StateMachine#validate}); throws {@link IllegalArgumentException} naming the problem. */
    void validate(byte[] payload) {
        stateMachine.validate(payload);
    }

    /** Whether {@code payload} only reads ({@link StateMachine#isReadOnly}). */
    boolean isReadOnly(byte[] payload) {
        return stateMachine.isReadOnly(payload);
    }

    /** Answers a read-only payload from the applied state ({@link StateMachine#read}). */
    byte[] read(byte[] payload) {
        return stateMachine.read(payload);
    }

    /** What applying {@code payload} after {@code before} will return, if certain now ({@link StateMachine#resultBeforeApply}). */
    byte[] resultBeforeApply(byte[] payload, List<byte[]> before) {
        return stateMachine.resultBeforeApply(payload, before);
    }

    /** Applies {@code ready}'s committed entries; returns the answers to the clients waiting here, in slot order. */
    public List<ClientReply> apply(Ready ready) {
        List<ClientReply> answers = new ArrayList<>(0);
        for (Committed committed : ready.committed()) {
            ClientReply answer = apply(committed);
            if (answer != null && committed.awaited()) {
                answers.add(answer);
            }
        }
        return answers;
    }

    private ClientReply apply(Committed committed) {
        Entry entry = committed.entry();
        Command command = entry.command();
        if (command.isNoop()) {
            return null; // The end-lease entry included: the replica's and the lease's business only.
        }
        if (GroupMembership.isChange(command)) {
            stateMachine.applyMembershipChange(entry.slot(), committed.configuration());
            return null;
        }
        if (Coding.isChange(command)) {
            stateMachine.applyCodingChange(entry.slot(), committed.configuration());
            return null;
        }
        int hint = ctx.replyLeaderHint();
        // A retried command already applied in an earlier slot is not applied again (at most once).
        ClientReply known = sessions.answer(command);
        if (known != null) {
            return new ClientReply(command.clientId(), command.sequence(), known.status(), known.slot(), known.result(), hint);
        }
        StateMachine.SessionWrite session = new StateMachine.SessionWrite(command.clientId(), command.sequence(),
                sessions.evictedBy(command.clientId()));
        byte[] result;
        if (committed.deferred()) {
            CodedValue coded = entry.coded();
            result = stateMachine.applyDeferred(entry.slot(), coded.header(), coded.valueLength(), coded.valueChecksum(),
                    session);
        } else {
            result = stateMachine.apply(entry.slot(), command.payload(), session);
        }
        sessions.recordApplied(command.clientId(), command.sequence(), entry.slot(), result);
        return new ClientReply(command.clientId(), command.sequence(), ClientReply.Status.OK, entry.slot(), result, hint);
    }
}
