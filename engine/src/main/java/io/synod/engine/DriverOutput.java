package io.synod.engine;

import io.synod.core.paxos.Message;
import io.synod.core.paxos.Ready;

/**
 * The driver's outputs that are not answers to a client (those go to the request's {@link Responder}):
 * what the runner does with the network, the disk and the election service. Each is a request; none
 * returns anything the driver waits for. The one storage request that completes later, a Ready's
 * persistence, is not here: the runner takes it with {@link GroupDriver#persistRequest()} and reports
 * its completion with {@link GroupDriver#persisted}. Lines for the operator go to {@link #log}.
 */
public interface DriverOutput extends DriverLog {
    /** A message to a peer of this group (best effort; Paxos retransmits). */
    void send(Message message);

    /** Storage: log entries at or below {@code slot} may be deleted (their fsync is done). */
    void compactThrough(long slot);

    /** Storage: write what this pass applied to the state machine (one atomic batch per pass). */
    void commitApplied();

    /** Storage: the damaged log is repaired; it may vote again. */
    void finishRepair();

    /** Election: stand for election in this group (once; also after a repair). */
    void joinElection();

    /** Election: give up leadership the replica was handed; let the service pick again. */
    void resign();

    /** Election: leave it (the group failed). */
    void leaveElection();

    /**
     * A Ready was taken from the replica, before anything of it leaves: an observation, not a request (the
     * simulator traces it and checks what it applied against the chosen log; the server has nothing to do).
     */
    default void readyTaken(Ready ready) {}
}
