package io.synod.server.node;

import io.synod.coordination.ClusterAclException;
import io.synod.coordination.ClusterMetadata;
import io.synod.coordination.ClusterSpec;
import io.synod.coordination.CoordinationException;
import io.synod.coordination.GroupConfig;
import io.synod.core.paxos.Coding;
import io.synod.server.config.ServerConfig;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster spec a starting node agrees to (ZooKeeper's, created by the first node) and the coding it implies.
 * The spec, not a node's own config, is what every member runs with: a node whose config disagrees in what
 * cannot change at run time is refused with one line naming both.
 */
final class ClusterSpecs {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterSpecs.class);

    private ClusterSpecs() {
    }

    /**
     * Creates the cluster's spec from {@code config} if ZooKeeper has none, and returns the spec in force. The spec's
     * members are the founding nodes; a config that lists more nodes (a node that joins the running cluster, or one
     * whose config names the nodes that joined) is checked against the founding ones here and against the placement
     * by {@link Placements#agree}.
     */
    static ClusterSpec agree(ServerConfig config, ClusterMetadata metadata) {
        int n = config.nodes().size();
        Optional<ClusterSpec> existing = metadata.clusterSpec();
        ServerConfig.CodingSetting codingSetting = config.coding();
        if (existing.isPresent() && existing.get().members().size() < n) {
            n = existing.get().members().size();
            if (codingSetting.explicit()) {
                throw new IllegalStateException("node " + config.nodeId() + " refuses to join cluster '"
                        + config.clusterName() + "': its nodes list " + config.nodes().size() + " nodes with coding="
                        + codingSetting.text(config.nodes().size()) + ", but a joining node takes the cluster's coding "
                        + "from ZooKeeper (its code keeps the founding nodes' N = " + n + "): leave coding= out of its "
                        + "configuration (docs/membership.md, Adding a node)");
            }
            codingSetting = new ServerConfig.CodingSetting((n - 1) / 2, 1, codingSetting.thresholdBytes(), false);
        }
        ClusterSpec defaults = ClusterSpec.defaults(n).withGroups(config.groups());
        ServerConfig.LeaseSetting leaseSetting = config.lease();
        ClusterSpec wanted = new ClusterSpec(defaults.groups(), defaults.members(), codingSetting.failures(),
                codingSetting.dataShards(), codingSetting.dataShards() > 1 ? codingSetting.thresholdBytes()
                        : defaults.codingThresholdBytes(), leaseSetting.mode(), leaseSetting.timing());
        if (existing.isPresent() && differsOnlyInCoding(existing.get(), wanted)) {
            // Coding changes go through each group's log (docs/erasure.md, "The admin path"): the spec keeps the
            // creation-time coding, every replica starts from it and from what its disk records, so a node whose
            // coding= names the coding changed to (same N) joins with the spec's.
            LOG.warn("node {}: coding={} differs from the cluster spec's F={} X={} threshold={}; using the spec's (each "
                    + "group's log decides the coding in force)", config.nodeId(), config.coding().text(n), existing.get().f(),
                    existing.get().codingDataShards(), existing.get().codingThresholdBytes());
            wanted = existing.get();
        }
        try {
            metadata.createCluster(wanted);
        } catch (ClusterAclException e) {
            throw e; // Not a spec mismatch: its message names the zookeeper.auth.* keys to set.
        } catch (CoordinationException e) {
            throw new IllegalStateException("cluster '" + config.clusterName() + "' exists in ZooKeeper with a different "
                    + "spec than this node's (" + n + " nodes, " + config.groups() + " groups, coding "
                    + codingSetting.text(n) + ", lease " + leaseSetting + "): " + e.getMessage(), e);
        }
        Optional<ClusterSpec> spec = metadata.clusterSpec();
        ClusterSpec cluster = spec.orElseThrow(() -> new IllegalStateException("cluster spec missing after create"));
        if (cluster.members().size() != n) {
            throw new IllegalStateException("cluster '" + config.clusterName() + "' has " + cluster.members().size()
                    + " members in ZooKeeper, this node's config lists " + n);
        }
        return cluster;
    }

    /**
     * Whether a node's {@code wanted} spec differs from the coded cluster's {@code existing} one only in F, X and the
     * threshold (N and everything else equal; {@code wanted} may be majorities, e.g. 5,2,1, which is F = 2, X = 1).
     */
    static boolean differsOnlyInCoding(ClusterSpec existing, ClusterSpec wanted) {
        return !existing.equals(wanted) && existing.groups() == wanted.groups() && existing.members().equals(wanted.members())
                && existing.leaseMode() == wanted.leaseMode()
                && Objects.equals(existing.leaseTiming(), wanted.leaseTiming()) && coded(existing);
    }

    private static boolean coded(ClusterSpec spec) {
        return spec.codingDataShards() != 1 || spec.f() != (spec.members().size() - 1) / 2;
    }

    /**
     * The replica coding of a group as ZooKeeper's cluster spec records it (the spec, not this node's
     * config, is what every member agrees on): RS-Paxos (Mu et al. 2014, section 4) unless X = 1 with
     * F = (N - 1) / 2, which is classic majorities.
     */
    static Coding codingOf(GroupConfig group) {
        int n = group.members().size();
        if (group.codingDataShards() == 1 && group.f() == (n - 1) / 2) {
            return Coding.OFF;
        }
        return Coding.rsPaxos(n, group.f(), group.codingDataShards(), Math.max(1, group.codingThresholdBytes()));
    }
}
