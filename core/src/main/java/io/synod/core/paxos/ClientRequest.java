package io.synod.core.paxos;

/**
 * A request from a client to a replica. {@code readOnly} requests (as decided by the state machine)
 * may be answered without a log round when the lease policy allows it; all others go through the log.
 */
public record ClientRequest(Command command) {
    public ClientRequest {
        if (command == null || command.isNoop()) {
            throw new IllegalArgumentException("a client request needs a non-no-op command");
        }
    }
}
