package io.synod.coordination;

import java.io.Closeable;

/**
 * Leader election for the replication groups one node hosts, and epoch allocation.
 *
 * <p><b>Contract.</b> For each joined group the listener receives:
 * <ul>
 *   <li>{@code Elected(epoch)} when this node wins the group's election. {@code epoch} was just
 *       allocated by compare-and-set on {@code /synod/<cluster>/groups/<g>/epoch}, so every
 *       {@code Elected} ever handed out for a group carries a distinct, strictly larger epoch than
 *       all earlier ones. The replica starts phase 1 with ballot (epoch, self).</li>
 *   <li>{@code LeaderIs(id)} when another node holds the group's election.</li>
 *   <li>{@code LeaderIs(-1)} when no leader is known, and in particular <b>at once</b> when this node
 *       stops being leader: it lost the election node, its ZooKeeper session was LOST, the
 *       connection stayed SUSPENDED longer than the configured bound, it deferred to a more
 *       up-to-date member, or {@link #resign} was called.</li>
 *   <li>{@code EpochSeen(epoch)} whenever the group's epoch znode is read (at join, on every change,
 *       after a reconnection): the newest epoch handed out, which bounds the ballots the replica
 *       accepts (docs/security.md).</li>
 * </ul>
 * Events are hints (docs/coordination.md): two nodes may briefly both believe they lead,
 * for example across a partition from ZooKeeper. Safety comes from the acceptors' ballots, never
 * from this service.
 *
 * <p><b>Threading.</b> All callbacks of one service instance run on one dispatcher thread, in the
 * order the service decided them; the listener must not block (hop onto the group's event loop).
 * Methods of this interface may be called from any thread, including from a listener callback.
 */
public interface ElectionService extends Closeable {

    /** This node's id, as published in the election and member znodes. */
    int nodeId();

    /**
     * Start competing for leadership of {@code group} and following its leader.
     *
     * @throws IllegalStateException if the group was already joined or the service is closed
     */
    void join(int group, ElectionListener listener);

    /**
     * Give up leadership of {@code group} if held (the replica resigned, for example after a
     * phase-1 timeout): the listener gets {@code LeaderIs(-1)}, this node leaves the election and
     * re-joins at the back of the queue, so another member gets the chance to lead. A no-op for a
     * group this node does not lead.
     */
    void resign(int group);

    /** Stop competing for {@code group}: if leading, {@code LeaderIs(-1)} is delivered first. */
    void leave(int group);

    /**
     * The leader this node currently believes in for {@code group}: its own id while it holds an
     * epoch, another node's id, or -1.
     */
    int leaderOf(int group);

    /** The epoch this node holds for {@code group} while it leads, otherwise -1. */
    long epochOf(int group);

    /** Leaves every group (delivering {@code LeaderIs(-1)} where leading) and stops the dispatcher. */
    @Override
    void close();
}
