package io.synod.coordination;

/**
 * The znode layout of one Synod cluster (docs/coordination.md):
 * <pre>
 * /synod/&lt;cluster&gt;                       cluster spec ({@link ClusterSpec} encoding)
 * /synod/&lt;cluster&gt;/members/&lt;node&gt;        ephemeral, {@link MemberInfo}
 * /synod/&lt;cluster&gt;/groups/&lt;g&gt;/election   Curator leader latch participants
 * /synod/&lt;cluster&gt;/groups/&lt;g&gt;/epoch      {@link EpochRecord}, compare-and-set
 * /synod/&lt;cluster&gt;/groups/&lt;g&gt;/config     {@link GroupConfig}
 * /synod/&lt;cluster&gt;/shards                {@link ShardMap}
 * /synod/&lt;cluster&gt;/incarnations/&lt;node&gt;   {@link NodeIncarnation}, persistent
 * /synod/&lt;cluster&gt;/replicas/&lt;g&gt;          {@link ReplicaMap}, compare-and-set; absent: the identity map
 * /synod/&lt;cluster&gt;/placement             {@link Placement}, compare-and-set; absent: every node hosts every group
 * </pre>
 */
public final class ClusterPaths {

    /** Node ids fit the replica's acceptor bit sets (ReplicaConfig.MAX_CLUSTER_SIZE - 1). */
    public static final int MAX_NODE_ID = 62;

    private final String cluster;

    public ClusterPaths(String cluster) {
        this.cluster = validClusterName(cluster);
    }

    /**
     * A cluster name is 1..64 characters of {@code [A-Za-z0-9._-]}, not "." or "..", so it is one
     * znode path segment.
     *
     * @throws IllegalArgumentException naming the problem
     */
    public static String validClusterName(String name) {
        if (name == null || name.isEmpty() || name.length() > 64) {
            throw new IllegalArgumentException("cluster name must be 1..64 characters, got "
                    + (name == null ? "null" : "'" + name + "'"));
        }
        if (name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("cluster name must not be '" + name + "'");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                throw new IllegalArgumentException("cluster name may hold only letters, digits, '.', '_' and '-', got '"
                        + name + "'");
            }
        }
        return name;
    }

    public String cluster() {
        return cluster;
    }

    public String root() {
        return "/synod/" + cluster;
    }

    public String members() {
        return root() + "/members";
    }

    public String member(int nodeId) {
        return members() + "/" + nodeId;
    }

    public String groups() {
        return root() + "/groups";
    }

    public String group(int group) {
        return groups() + "/" + group;
    }

    public String election(int group) {
        return group(group) + "/election";
    }

    public String epoch(int group) {
        return group(group) + "/epoch";
    }

    public String config(int group) {
        return group(group) + "/config";
    }

    public String shards() {
        return root() + "/shards";
    }

    public String incarnations() {
        return root() + "/incarnations";
    }

    public String replicaMaps() {
        return root() + "/replicas";
    }

    /** The group's {@link ReplicaMap}: created by the first node that re-joins as a new incarnation. */
    public String replicaMap(int group) {
        return replicaMaps() + "/" + group;
    }

    /** The cluster's {@link Placement}: created by the first node that starts with placement support. */
    public String placement() {
        return root() + "/placement";
    }

    /** The node's {@link NodeIncarnation}: created on the first start of its data directory, never by the cluster. */
    public String incarnation(int nodeId) {
        return incarnations() + "/" + nodeId;
    }
}
