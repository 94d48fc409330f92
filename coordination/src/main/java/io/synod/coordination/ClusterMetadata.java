package io.synod.coordination;

import java.io.Closeable;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Cluster-wide metadata in ZooKeeper: the cluster spec, each group's {@link GroupConfig}, each
 * group's epoch counter, and the range-to-group {@link ShardMap}. Reads and compare-and-set writes
 * block the calling thread (they are for startup and administration, not for group event loops).
 *
 * <p>Malformed znode content raises {@link MetadataFormatException} naming the path and the fault.
 * Watch callbacks run on one metadata dispatcher thread; a malformed update is logged and not
 * delivered (the listener keeps the last good value).
 */
public interface ClusterMetadata extends Closeable {

    /** The cluster name (the {@code <cluster>} path segment). */
    String cluster();

    /**
     * Create the cluster's znodes in one ZooKeeper transaction: the spec at the root, G groups with
     * config, epoch (0, nobody) and election nodes, the members parent, and {@link
     * ShardMap#uniform}(G) as the shard map. Idempotent: returns {@code false} without changing
     * anything if the cluster exists with an equal spec.
     *
     * <p>With a ZooKeeper identity ({@link ZooKeeperAccess}) every znode is created writable by that identity
     * only and readable by anyone; an existing cluster still open to anyone is secured the same way, one
     * protected by another identity (or protected while this node has none) is refused.
     *
     * @return {@code true} if this call created the cluster
     * @throws ClusterAclException   if the cluster's ACL is another identity's (message names the keys to set)
     * @throws CoordinationException if the cluster exists with a different spec (message names both)
     */
    boolean createCluster(ClusterSpec spec);

    /** The spec the cluster was created with, or empty if the cluster does not exist. */
    Optional<ClusterSpec> clusterSpec();

    /** G, from the cluster spec. @throws CoordinationException if the cluster does not exist */
    int groupCount();

    /** @throws CoordinationException if the group does not exist */
    Versioned<GroupConfig> groupConfig(int group);

    /**
     * Replace group {@code group}'s config if its znode still has {@code expectedVersion}.
     *
     * @return {@code false} on a version conflict (someone else changed it; re-read and retry)
     */
    boolean compareAndSetGroupConfig(int group, int expectedVersion, GroupConfig next);

    /** The group's epoch counter. */
    Versioned<EpochRecord> epoch(int group);

    /** @throws CoordinationException if the cluster does not exist */
    Versioned<ShardMap> shardMap();

    /**
     * Replace the shard map if its znode still has {@code expectedVersion}. The new map's
     * generation must be greater than the stored one's and its group count must equal G.
     *
     * @return {@code false} on a version conflict
     * @throws IllegalArgumentException if the new map does not fit the cluster
     */
    boolean compareAndSetShardMap(int expectedVersion, ShardMap next);

    /**
     * The incarnation ZooKeeper records for {@code nodeId}, or empty if none is recorded.
     *
     * @throws MetadataFormatException if the znode does not decode or names another node
     */
    Optional<NodeIncarnation> incarnation(int nodeId);

    /**
     * Records {@code incarnation} for its node unless one is recorded already (a persistent znode, created once,
     * never overwritten). The cluster must exist.
     *
     * @return the incarnation recorded afterwards: {@code incarnation} if this call created it, else the earlier one
     */
    NodeIncarnation recordIncarnation(NodeIncarnation incarnation);

    /**
     * Replaces the incarnation ZooKeeper records for a node by {@code next} if it still records {@code expected}: a node
     * whose data directory was wiped starts as a new incarnation (docs/membership.md, "A wiped node re-joins").
     *
     * @return the incarnation recorded afterwards: {@code next} if this call replaced it, else the one found
     */
    NodeIncarnation replaceIncarnation(NodeIncarnation expected, NodeIncarnation next);

    /** The group's {@link ReplicaMap} with its znode version, or the identity map with version -1 when there is no znode. */
    Versioned<ReplicaMap> replicaMap(int group);

    /**
     * Writes the group's replica map if its znode still has {@code expectedVersion} (-1: it must not exist yet).
     *
     * @return {@code false} on a conflict (someone else wrote it; re-read and retry)
     */
    boolean compareAndSetReplicaMap(int group, int expectedVersion, ReplicaMap next);

    /** Calls {@code listener} after every creation or change of the group's replica map (not for an absent znode). */
    void watchReplicaMap(int group, Consumer<Versioned<ReplicaMap>> listener);

    /** The cluster's {@link Placement} with its znode version, or empty when no node recorded one yet. */
    Optional<Versioned<Placement>> placement();

    /**
     * Writes the placement if its znode still has {@code expectedVersion} (-1: it must not exist yet).
     *
     * @return {@code false} on a conflict (someone else wrote it; re-read and retry)
     */
    boolean compareAndSetPlacement(int expectedVersion, Placement next);

    /** Calls {@code listener} after every creation or change of the placement. */
    void watchPlacement(Consumer<Versioned<Placement>> listener);

    /** Calls {@code listener} with the current shard map, then after every change. */
    void watchShardMap(Consumer<Versioned<ShardMap>> listener);

    /** Calls {@code listener} with the group's current config, then after every change. */
    void watchGroupConfig(int group, Consumer<Versioned<GroupConfig>> listener);

    /** Stops all watches. */
    @Override
    void close();
}
