package io.synod.server.node;

import io.synod.coordination.ClusterMetadata;
import io.synod.coordination.ClusterPaths;
import io.synod.coordination.LeaseMode;
import io.synod.coordination.NodeIncarnation;
import io.synod.coordination.ReplicaMap;
import io.synod.coordination.Versioned;
import io.synod.core.paxos.Coding;
import io.synod.engine.MembershipAdmin;
import io.synod.server.config.ServerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A wiped node re-joins by itself (docs/membership.md, "A wiped node re-joins"). At start ({@link #newIncarnation}), a
 * node whose data directory holds no state while ZooKeeper remembers its incarnation takes a new incarnation and, in
 * every group, a new replica id (never one used before, rule M7): it is no member of any group yet, so nothing it
 * answers is counted. Then, on whichever node leads a group, {@link #step} asks the group's driver for the next change
 * towards the membership without the old id and with the new one voting: remove the old id, add the new one as a
 * learner, promote it once it has caught up (rule M6). The same round converges each group to its placement
 * ({@link Placements#target}): a replica moved to another node ({@code synod admin move-replica}, {@code remove-node})
 * is added there and removed from its old node last. Each step is derived from the committed membership, the map and
 * the placement, so repeating it after a crash, a lost answer or a new leader is safe.
 */
final class Rejoin {
    private static final Logger LOG = LoggerFactory.getLogger(Rejoin.class);
    /**
     * How often {@link #step} runs. Each step waits for the previous change to commit (rule M5) and a promotion for the
     * learner to catch up (M6), so a re-join takes three steps plus the catch-up: at 500 ms the steps alone cost up to
     * 1.5 s (docs/membership.md, "Catch-up speed"). A round on a group with nothing to do costs a map read.
     */
    static final long STEP_MILLIS = 50;

    private final int nodeId;
    /** Per group, the membership its leader converges to (the replica map's and the placement's, {@link Placements}). */
    private final IntFunction<MembershipAdmin.Request> target;
    /** Whether this node leads a group now (the election's view). */
    private final IntPredicate leads;
    /** Hands a request to a group's loop; the answer comes on the group's worker. */
    interface Submit {
        void submit(int group, MembershipAdmin.Request request, Consumer<MembershipAdmin.Answer> answer);
    }

    private final Submit submit;
    /** Per group: the request the driver answered "nothing to do" (it is not sent again). */
    private final AtomicReferenceArray<MembershipAdmin.Request> settled;

    Rejoin(int nodeId, int groups, IntFunction<MembershipAdmin.Request> target, IntPredicate leads, Submit submit) {
        this.nodeId = nodeId;
        this.target = target;
        this.leads = leads;
        this.submit = submit;
        this.settled = new AtomicReferenceArray<>(groups);
    }

    /**
     * The replica id space of the cluster's groups: 0..62 (ids beyond the node ids, so that a wiped node re-joins under
     * new ones, rule M7), whatever the lease (every lease mode follows the membership: rules QL1-QL5 and LL1,
     * docs/membership.md) and the coding: a coded group keeps its code length N (the coding it stores is unchanged)
     * and the ids past it get full copies (rule M9). Groups created with the node ids as their id space keep their
     * memberships (every node voting, stored nowhere until a first change), which read the same over 0..62.
     */
    static final int UNIVERSE = ReplicaMap.MAX_IDS;

    /**
     * Why a node of a cluster in this mode cannot re-join under new replica ids, or null if it can: every lease mode and
     * RS-Paxos coding can, and coding with leader leases (simulated with membership changes, docs/membership.md, "Which
     * modes"), but not coding with quorum leases (quorum, quorum-auto, megastore), whose simulation found a stale read.
     */
    static String refusal(Coding coding, LeaseMode lease) {
        if (coding.enabled() && ServerConfig.LeaseSetting.isQuorum(lease)) {
            return "RS-Paxos coded groups with quorum leases (" + lease + ") are not simulated safe with membership "
                    + "changes, so their members do not change (coded groups change members with lease=none|leader|"
                    + "leader-timer)";
        }
        return null;
    }

    /**
     * Checks this node's data directory against ZooKeeper ({@link NodeIdentity#establish}; a wiped directory re-joins
     * as a new incarnation when {@code rejoin.wiped} is on and the cluster's mode allows it, see {@link #refusal}), then
     * re-creates the groups whose directory lost part of its state ({@link LostGroups}) and reads the replica maps with
     * this node's ids in them. Before any group opens its storage.
     */
    static ReplicaRoutes establish(ServerConfig config, ClusterMetadata metadata, int groups, Coding coding, LeaseMode lease)
            throws IOException {
        String refusal = refusal(coding, lease);
        NodeIdentity.Rejoiner rejoiner = !config.rejoinWiped() ? null
                : refusal != null ? (old, id) -> {
                    throw new NodeIdentity.RefusedException("node " + old.nodeId() + " of cluster '" + config.clusterName()
                            + "' refuses to start: its data.dir " + config.dataDir() + " holds no Synod state while "
                            + "ZooKeeper remembers incarnation " + old.id() + ", and it cannot re-join as a new "
                            + "incarnation: " + refusal + " (docs/membership.md, \"Which modes\"). Restore the data "
                            + "directory, or delete the znode " + new ClusterPaths(config.clusterName())
                            .incarnation(old.nodeId()) + " accepting the risk of lost writes");
                }
                : (old, id) -> newIncarnation(config.dataDir(), config.clusterName(), old, metadata, groups, id);
        boolean started = NodeIdentity.read(config.dataDir()).isPresent(); // else a first start, or a wiped directory
        UUID incarnation = NodeIdentity.establish(config.dataDir(), config.clusterName(), config.nodeId(), metadata,
                UUID::randomUUID, rejoiner);
        LostGroups.recreate(config, metadata, groups, refusal, started, incarnation);
        return ReplicaRoutes.open(metadata, config.nodeId(), groups);
    }

    /**
     * Starts {@code old}'s node as a new incarnation: a new replica id in every group's map (compare-and-set, once per
     * incarnation), then the incarnation znode replaced, then {@code node.identity} written. A crash before the last
     * step leaves a directory without identity, and the next start takes yet another incarnation: the ids allocated in
     * between are never used (they are replaced before they were added), which is safe.
     */
    static UUID newIncarnation(Path dataDir, String cluster, NodeIncarnation old, ClusterMetadata metadata, int groups,
            UUID id) throws IOException {
        NodeIncarnation next = new NodeIncarnation(old.nodeId(), id);
        for (int g = 0; g < groups; g++) {
            while (true) {
                Versioned<ReplicaMap> current = metadata.replicaMap(g);
                ReplicaMap map = current.value().withIncarnation(next, old.id(), UNIVERSE);
                if (map == current.value() || metadata.compareAndSetReplicaMap(g, current.version(), map)) {
                    LOG.info("node {}: group {}: replica id {} for incarnation {}", old.nodeId(), g,
                            map.currentId(old.nodeId()), id);
                    break;
                }
            }
        }
        NodeIncarnation recorded = metadata.replaceIncarnation(old, next);
        if (!recorded.equals(next)) {
            throw new NodeIdentity.RefusedException("node " + old.nodeId() + " of cluster '" + cluster + "' refuses to "
                    + "start: while it re-joined as incarnation " + id + ", ZooKeeper's record changed from " + old.id()
                    + " to " + recorded.id() + ": another process started this node. Stop it and start again");
        }
        NodeIdentity.write(dataDir, new NodeIdentity.Marker(cluster, old.nodeId(), id));
        LOG.warn("node {}: its data.dir {} held no state while ZooKeeper remembered incarnation {}: started as new "
                + "incarnation {}; each group's leader replaces its old replica id by the new one (learner, then voter "
                + "once caught up)", old.nodeId(), dataDir, old.id(), id);
        return id;
    }

    /**
     * One round, on the node's progress thread: for every group this node leads that is not settled for its target
     * (the replica map's re-joined ids and the placement's nodes, {@link Placements#target}), asks the group's driver
     * for the next step. A replica moved to another node ({@code synod admin move-replica}) converges the same way.
     */
    void step() {
        for (int g = 0; g < settled.length(); g++) {
            MembershipAdmin.Request request = target.apply(g);
            if (request.equals(settled.get(g)) || !leads.test(g)) {
                continue;
            }
            int group = g;
            submit.submit(g, request, a -> answered(group, request, a));
        }
    }

    /** The driver's answer to a step of {@code group} asked with {@code request}. */
    private void answered(int group, MembershipAdmin.Request request, MembershipAdmin.Answer answer) {
        if (answer.proposed()) {
            LOG.info("node {}: re-join in {}", nodeId, answer.message());
        } else if (answer.settled()) {
            settled.set(group, request);
        } else {
            LOG.debug("node {}: re-join step waits: {}", nodeId, answer.message());
        }
    }
}
