package io.synod.coordination;

import java.util.Map;
import java.util.Objects;

/**
 * What a live node publishes in its ephemeral member znode {@code /synod/<cluster>/members/<node>}.
 *
 * @param nodeId        the node id (0..62, the replica's id)
 * @param peerAddress   host:port other Synod nodes connect to
 * @param clientAddress host:port clients connect to
 * @param zone          failure zone / datacenter label (may be empty)
 * @param version       the Synod software version string the node runs (may be empty)
 * @param progress      per group: the newest (epoch, last slot) of the node's log
 */
public record MemberInfo(int nodeId, String peerAddress, String clientAddress, String zone,
                         String version, Map<Integer, GroupProgress> progress) {

    public MemberInfo {
        if (nodeId < 0 || nodeId > ClusterPaths.MAX_NODE_ID) {
            throw new IllegalArgumentException("node id must be 0.." + ClusterPaths.MAX_NODE_ID + ", got " + nodeId);
        }
        Objects.requireNonNull(peerAddress, "peerAddress");
        Objects.requireNonNull(clientAddress, "clientAddress");
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(version, "version");
        progress = Map.copyOf(progress);
    }

    /** A member with no progress published yet. */
    public static MemberInfo of(int nodeId, String peerAddress, String clientAddress, String zone, String version) {
        return new MemberInfo(nodeId, peerAddress, clientAddress, zone, version, Map.of());
    }

    /** The published progress for {@code group}, or {@link GroupProgress#NONE}. */
    public GroupProgress progressOf(int group) {
        return progress.getOrDefault(group, GroupProgress.NONE);
    }
}
