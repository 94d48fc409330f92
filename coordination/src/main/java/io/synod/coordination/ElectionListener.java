package io.synod.coordination;

import io.synod.protocol.ElectionEvent;

/**
 * Receives a group's election events. Called on the election service's single dispatcher thread
 * (see {@link ElectionService}); an implementation must not block, it should hand the event to the
 * group's event loop and return.
 */
@FunctionalInterface
public interface ElectionListener {
    /**
     * @param group the group the event is about
     * @param event {@link ElectionEvent.Elected} (this node won and holds a fresh epoch),
     *              {@link ElectionEvent.LeaderIs} with another node's id (follow it), or
     *              {@code LeaderIs(-1)} (no known leader; if this node was leading, stop now), or
     *              {@link ElectionEvent.EpochSeen} (the newest epoch of the group's epoch znode)
     */
    void onElection(int group, ElectionEvent event);
}
