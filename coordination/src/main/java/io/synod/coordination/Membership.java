package io.synod.coordination;

import java.io.Closeable;
import java.util.Map;

/**
 * Live membership: each running node owns an ephemeral znode {@code /synod/<cluster>/members/<node>}
 * holding its {@link MemberInfo}. The node vanishes when the node's ZooKeeper session ends and is
 * re-created by the implementation after a new session is established.
 *
 * <p>Listener callbacks run on one membership dispatcher thread and must not block.
 */
public interface Membership extends Closeable {

    /**
     * Publish this node's member znode (ephemeral). Called once; later changes go through
     * {@link #updateProgress}.
     *
     * If the znode is still held by another session (a previous incarnation whose session has not
     * expired yet), its data is overwritten and the znode is re-created under this session once the
     * old one vanishes.
     *
     * @throws IllegalStateException if already registered
     * @throws CoordinationException if the znode cannot be created within the connection timeout
     */
    void register(MemberInfo self);

    /**
     * Record this node's progress for {@code group}. Cheap and non-blocking: callable from a group
     * event loop on every batch; writes are coalesced and published at most once per publish
     * interval (the latest value wins).
     */
    void updateProgress(int group, GroupProgress progress);

    /** Publish any coalesced progress now and wait until ZooKeeper has it (tests, shutdown). */
    void flush();

    /** The live members as last seen (a cache kept current by a watch; never blocks on ZooKeeper). */
    Map<Integer, MemberInfo> members();

    /** Add a listener; it is told the current members at once and then every change. */
    void addListener(MembershipListener listener);

    /** Deletes this node's member znode and stops watching. */
    @Override
    void close();
}
