package io.synod.server.group.driver;

import io.synod.core.paxos.Message;
import io.synod.protocol.ElectionEvent;
import io.synod.server.wire.WireFrame;

/** One input to a {@link GroupDriver} ({@link GroupDriver#step}); the time comes with the call. */
public sealed interface DriverInput {
    /** A message from a peer replica. */
    record Peer(Message message) implements DriverInput {}

    /** A client command, received at {@code receivedNanos} (the runner's clock). */
    record Client(WireFrame.ClientCommand command, Responder responder, long receivedNanos) implements DriverInput {}

    /** A STALE read of the local state. */
    record StaleRead(WireFrame.StaleRead read, Responder responder) implements DriverInput {}

    /** A watch long-poll. */
    record WatchPoll(WireFrame.WatchPoll poll, Responder responder) implements DriverInput {}

    /** An admin coding change. */
    record CodingChange(WireFrame.CodingChange change, Responder responder) implements DriverInput {}

    /** An election event (elected, lost, ...). */
    record Election(ElectionEvent event) implements DriverInput {}

    /** Nothing: wakes the runner for a pass (the driver ignores it). */
    record Wake() implements DriverInput {}
}
