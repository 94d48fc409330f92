package io.synod.engine;

import io.synod.core.paxos.Message;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ElectionEvent;
import java.util.function.Consumer;

/** One input to a {@link GroupDriver} ({@link GroupDriver#step}); the time comes with the call. */
public sealed interface DriverInput {
    /** A message from a peer replica. */
    record Peer(Message message) implements DriverInput {}

    /**
     * A client command, received at {@code receivedNanos} (the runner's clock); {@code readOnly} as the client port
     * decoded it ({@code RoutedCommand}), so the driver does not decode the payload again.
     */
    record Client(ClientFrame.Command command, boolean readOnly, Responder responder, long receivedNanos)
            implements DriverInput {}

    /** A STALE read of the local state; {@code readOnly} as the client port decoded it (one that is not is refused). */
    record StaleRead(ClientFrame.StaleRead read, boolean readOnly, Responder responder) implements DriverInput {}

    /** A watch long-poll. */
    record WatchPoll(ClientFrame.WatchPoll poll, Responder responder) implements DriverInput {}

    /** An admin coding change. */
    record CodingChange(ClientFrame.CodingChange change, Responder responder) implements DriverInput {}

    /** An admin membership request ({@link MembershipAdmin}), answered at once. */
    record Membership(MembershipAdmin.Request request, Consumer<MembershipAdmin.Answer> answer)
            implements DriverInput {}

    /** An election event (elected, lost, ...). */
    record Election(ElectionEvent event) implements DriverInput {}

}
