package io.synod.client;

import io.netty.util.concurrent.ScheduledFuture;
import io.synod.protocol.ClientFrame;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * One request in the {@link ClientEngine}: what to send, where it is routed, its lane, attempts and
 * timeout, and the request frame built for each attempt. Touched only on the engine's event loop.
 */
final class PendingOp {
    final String description;
    final byte[] payload;
    final byte[] routingKey;
    final boolean readOnly;
    /** A watch poll ({@link ClientFrame.WatchPoll}) rather than a command. */
    final boolean watch;
    final Consistency consistency;
    final long deadlineNanos;
    final CompletableFuture<ClientEngine.Reply> future = new CompletableFuture<>();
    Lane lane;
    long sequence;
    long requestId;
    ServerConnection via;
    int target = -1;
    int group = -1;
    int attempts;
    int redirects;
    /** This attempt asks its server to forward it to the leader ({@link ForwardRoutes}). */
    boolean forward;
    /** This attempt's server answered a placement query: a command carries {@link ClientFrame#FLAG_ROUTED}. */
    boolean routed;
    /** The preferred reader ({@link SynodClient.Builder#readFrom}) refused this read or could not be reached. */
    boolean preferredRefused;
    /**
     * The write may have reached a replica's log: it was in flight when its connection broke or its
     * timeout fired, or a replica answered UNKNOWN. Then a timeout is an unknown outcome; a write only
     * ever refused (NOT_LEADER, BUSY, never sent) times out as definitely not applied.
     */
    boolean maybeApplied;
    ScheduledFuture<?> timeout;
    String lastProblem = "no server answered";
    /** An admin request for its group, a coding or membership change ({@code requestId} replaced per attempt), or null. */
    ClientFrame admin;

    PendingOp(String description, byte[] payload, byte[] routingKey, boolean readOnly, boolean watch,
            Consistency consistency, long deadlineNanos) {
        this.description = description;
        this.payload = payload;
        this.routingKey = routingKey;
        this.readOnly = readOnly;
        this.watch = watch;
        this.consistency = consistency;
        this.deadlineNanos = deadlineNanos;
    }

    /** The group an {@link #admin} request is for. */
    int adminGroup() {
        return admin instanceof ClientFrame.CodingChange c ? c.group() : ((ClientFrame.MembershipRequest) admin).group();
    }

    boolean readOnly() {
        return readOnly;
    }

    /**
     * The error of an op whose deadline passed, and its lane renewed: a fresh client id, so that a late answer to this
     * one never passes for the next.
     */
    SynodException expired() {
        if (lane != null) {
            lane.clientId = Lane.newClientId();
            lane.sequence = 0;
        }
        return maybeApplied ? new OutcomeUnknownException(description + ": no answer before the timeout; it may or may "
                + "not have been applied (last: " + lastProblem + ")")
                : new SynodTimeoutException(description + ": no answer before the timeout (last: " + lastProblem + ")");
    }

    /** The frame for the current attempt: a watch poll, a stale read, or a sequenced command. */
    ClientFrame toFrame() {
        if (admin instanceof ClientFrame.MembershipRequest m) {
            return new ClientFrame.MembershipRequest(requestId, m.group(), m.op(), m.replica(),
                    routed ? ClientFrame.FLAG_ROUTED : 0);
        }
        if (admin instanceof ClientFrame.CodingChange c) {
            return new ClientFrame.CodingChange(requestId, c.group(), c.failures(), c.dataShards(), c.thresholdBytes());
        }
        return watch ? new ClientFrame.WatchPoll(requestId, payload)
                : consistency == Consistency.STALE && readOnly()
                ? new ClientFrame.StaleRead(requestId, payload)
                : new ClientFrame.Command(requestId, lane.clientId, sequence, payload,
                        (consistency == Consistency.LOG ? ClientFrame.FLAG_THROUGH_LOG : 0)
                                | (forward ? ClientFrame.FLAG_FORWARD : 0) | (routed ? ClientFrame.FLAG_ROUTED : 0));
    }

    /**
     * A future completed with this op's outcome on {@code callbacks}, never on the event loop, so a
     * user callback that blocks cannot stall the client.
     */
    CompletableFuture<ClientEngine.Reply> userFuture(Executor callbacks) {
        CompletableFuture<ClientEngine.Reply> userFuture = new CompletableFuture<>();
        future.whenComplete((reply, error) -> {
            Runnable complete = () -> {
                if (error != null) {
                    userFuture.completeExceptionally(error);
                } else {
                    userFuture.complete(reply);
                }
            };
            try {
                callbacks.execute(complete);
            } catch (RejectedExecutionException closing) {
                complete.run(); // The client is closing: complete here rather than never.
            }
        });
        return userFuture;
    }
}
