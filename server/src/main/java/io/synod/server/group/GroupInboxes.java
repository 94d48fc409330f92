package io.synod.server.group;

import io.synod.core.paxos.Message;
import io.synod.engine.DriverInput;
import io.synod.protocol.ElectionEvent;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A group's bounded input queues, filled on any thread and drained by its worker. Peer messages and client-side
 * inputs wait in two separate queues, and a drain takes the peer queue first: a client flood fills only the client
 * queue (its surplus is refused at once) and never costs a peer message, which the group's progress depends on (a
 * dropped Accept or Promise is only recovered by a retransmission interval later). Election events wait in a third.
 */
final class GroupInboxes {
    /** Peer messages: drained first. */
    private final BlockingQueue<DriverInput> peer;
    /** Client commands, reads, watch polls, coding and membership changes: what a client may flood. */
    private final BlockingQueue<DriverInput> client;
    private final BlockingQueue<ElectionEvent> elections = new ArrayBlockingQueue<>(1024);
    private final AtomicLong droppedPeerMessages = new AtomicLong();
    private final AtomicLong peerMessagesQueued = new AtomicLong();
    private final AtomicLong clientInputsBusy = new AtomicLong();

    /** {@code capacity} bounds the peer queue and, separately, the client queue. */
    GroupInboxes(int capacity) {
        this.peer = new ArrayBlockingQueue<>(capacity);
        this.client = new ArrayBlockingQueue<>(capacity);
    }

    /** Queues a peer message; false (and counted) if the peer queue is full: Paxos retransmits what is shed. */
    boolean offerPeer(Message message) {
        if (peer.offer(new DriverInput.Peer(message))) {
            peerMessagesQueued.incrementAndGet();
            return true;
        }
        droppedPeerMessages.incrementAndGet();
        return false;
    }

    /** Queues a client-side input; false (and counted as BUSY) if the client queue is full. */
    boolean offerClient(DriverInput input) {
        if (client.offer(input)) {
            return true;
        }
        clientInputsBusy.incrementAndGet();
        return false;
    }

    boolean offerElection(ElectionEvent event) {
        return elections.offer(event);
    }

    /** The next election event, or null. */
    ElectionEvent pollElection() {
        return elections.poll();
    }

    /** Moves at most {@code max} inputs into {@code batch}, the peer queue first. */
    void drainTo(List<DriverInput> batch, int max) {
        peer.drainTo(batch, max);
        client.drainTo(batch, max - batch.size());
    }

    /** Whether the peer and client queues are both empty. */
    boolean isEmpty() {
        return peer.isEmpty() && client.isEmpty();
    }

    /** Inputs waiting in the peer and client queues. */
    int queued() {
        return peer.size() + client.size();
    }

    /** Peer messages dropped because the peer queue was full. */
    long droppedPeerMessages() {
        return droppedPeerMessages.get();
    }

    /** Peer messages accepted into the peer queue so far. */
    long peerMessagesQueued() {
        return peerMessagesQueued.get();
    }

    /** Client-side inputs refused because the client queue was full. */
    long clientInputsBusy() {
        return clientInputsBusy.get();
    }
}
