/**
 * What a Synod server needs from the outside world, and its ZooKeeper (Apache Curator)
 * implementation: per-group leader election with epoch allocation ({@link
 * io.synod.coordination.ElectionService}), live membership ({@link io.synod.coordination.Membership})
 * and cluster metadata: group configurations and the range-to-group shard map ({@link
 * io.synod.coordination.ClusterMetadata}, {@link io.synod.coordination.ShardMap}).
 *
 * <p>ZooKeeper is a failure detector and an epoch allocator here, never the source of safety: the
 * replicas' ballots decide (PaxStore, Tan et al., NPC 2014, §3: ZooKeeper-assisted election of a
 * centralized Multi-Paxos leader). The znode layout is in {@link io.synod.coordination.ClusterPaths}
 * and docs/coordination.md.
 */
package io.synod.coordination;
