package io.synod.server.node;

import io.synod.coordination.ClusterMetadata;
import io.synod.coordination.NodeIncarnation;
import io.synod.coordination.ReplicaMap;
import io.synod.coordination.Versioned;
import io.synod.server.config.ServerConfig;
import io.synod.server.log.CorruptStateException;
import io.synod.server.log.DurableFiles;
import io.synod.server.log.NodeStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partly lost data directory (docs/server.md, "Node identity"; docs/membership.md, "A partly lost data directory"):
 * {@code node.identity} is there and matches ZooKeeper, but some group lost its promise or accepted entries. Such a
 * group's replica forgot what it promised, so it must not come back under its id (rule M7); it comes back under a new
 * id of that group only, through the group's replica map, and the group's leader replaces the old id by it as for a
 * wiped node ({@link Rejoin#step}). The node's other groups, and its incarnation, stay as they are.
 *
 * <p>Each group directory carries a marker, {@value #FILE} (the cluster, node, group and replica id whose state it
 * holds): a group directory of another cluster, node or group, or of an id this node's re-join already replaced (a
 * restored copy), is not a clean loss and is refused with one line. A directory without the marker (written by an
 * earlier build, or a first start cut short) gets it.
 */
final class LostGroups {
    private static final Logger LOG = LoggerFactory.getLogger(LostGroups.class);
    static final String FILE = "replica.identity";
    private static final List<String> KEYS = List.of("format", "cluster", "node.id", "group", "replica.id", "crc32c");

    private LostGroups() {}

    /** What {@value #FILE} records: this group directory holds the state of {@code replica} of {@code group}. */
    record Marker(String cluster, int nodeId, int group, int replica) {}

    /**
     * Checks every group directory against its marker and the replica map, and gives each group that lost part of its
     * state ({@link NodeStorage#lostState}; only where the node ran before, {@code started}) a new replica id and a
     * fresh directory; its remains are kept aside as {@code lost-group-<g>-replica-<id>}. Before any group opens its
     * storage; after {@link NodeIdentity#establish}.
     *
     * @param refusal why this cluster's mode cannot change a group's members ({@link Rejoin#refusal}), or null
     */
    static void recreate(ServerConfig config, ClusterMetadata metadata, int groups, String refusal, boolean started,
            UUID incarnation) throws IOException {
        int node = config.nodeId();
        Path data = config.dataDir();
        String who = "node " + node + " of cluster '" + config.clusterName() + "' refuses to start: ";
        Map<Integer, String> lost = new LinkedHashMap<>();
        for (int g = 0; g < groups; g++) {
            Path dir = NodeStorage.groupDir(data, g);
            ReplicaMap map = metadata.replicaMap(g).value();
            int current = map.currentId(node);
            Optional<Marker> marker = read(dir);
            if (marker.isPresent() && movedBack(data, g, marker.get(), map, config.clusterName(), node)) {
                reset(data, g, marker.get(), current);
                continue; // a fresh directory with its marker: nothing of the new replica's state can be lost yet
            }
            if (marker.isPresent()) {
                Marker m = marker.get();
                if (!m.cluster().equals(config.clusterName()) || m.nodeId() != node || m.group() != g) {
                    throw new NodeIdentity.RefusedException(who + dir + " holds the state of group " + m.group()
                            + " of node " + m.nodeId() + " of cluster '" + m.cluster() + "' (file " + dir.resolve(FILE)
                            + "): a group directory copied from elsewhere. Put this node's own group-" + g + "/ back, or "
                            + "remove it to let the group re-join under a new replica id");
                }
                if (m.replica() != current) {
                    throw new NodeIdentity.RefusedException(who + dir + " holds the state of replica " + m.replica()
                            + " of group " + g + ", but this node runs replica " + current + " there (ZooKeeper's replica "
                            + "map): a copy from before that replica replaced it, whose promises are older than the ones "
                            + "it gave. Remove " + dir + " to let the group re-join under a new replica id");
                }
            }
            String missing = started ? NodeStorage.lostState(data, g, config.logShards()) : null;
            if (missing != null) {
                lost.put(g, missing);
            } else if (marker.isEmpty()) {
                Files.createDirectories(dir);
                write(dir, new Marker(config.clusterName(), node, g, current));
            }
        }
        if (lost.isEmpty()) {
            return;
        }
        String reason = refusal != null ? refusal + " (docs/membership.md, \"Which modes\")"
                : !config.rejoinWiped() ? "rejoin.wiped=false" : null;
        if (reason != null) {
            throw new NodeIdentity.RefusedException(who + "its data.dir " + data + " lost part of the state of group(s) "
                    + lost + ", whose promises and accepted values are gone, and they cannot re-join under new replica "
                    + "ids: " + reason + ". Restore the data directory");
        }
        for (Map.Entry<Integer, String> e : lost.entrySet()) {
            int g = e.getKey();
            int[] ids = newReplica(metadata, g, new NodeIncarnation(node, UUID.randomUUID()), incarnation);
            Path dir = NodeStorage.groupDir(data, g);
            if (Files.exists(dir)) {
                Path aside = data.resolve("lost-group-" + g + "-replica-" + ids[0]);
                for (int k = 2; Files.exists(aside); k++) {
                    aside = data.resolve("lost-group-" + g + "-replica-" + ids[0] + "-" + k);
                }
                Files.move(dir, aside);
                DurableFiles.syncDirectory(data);
            }
            Files.createDirectories(dir);
            write(dir, new Marker(config.clusterName(), node, g, ids[1]));
            LOG.warn("node {}: group {} lost part of its state ({}): replica {} forgot its promises, so the group "
                    + "re-joins under replica {} (learner, then voter once caught up); the other groups keep their "
                    + "replicas", node, g, e.getValue(), ids[0], ids[1]);
        }
    }

    /**
     * Whether group directory {@code marker}'s replica was replaced by a move back onto this node ({@code synod admin
     * move-replica}, {@link Placements#newId}): the node's current id in the group is the one a move back allocated in
     * place of exactly the id this directory holds ({@link ReplicaMoves#moveBackMark}), and this directory was never
     * put aside for it before ({@link #movedAside}; one that was is a restored copy, refused by the caller's check).
     */
    static boolean movedBack(Path data, int group, Marker marker, ReplicaMap map, String cluster, int node) {
        int current = map.currentId(node);
        ReplicaMap.Replica r = current < 0 ? null : map.replica(current);
        return r != null && marker.replica() != current && marker.cluster().equals(cluster) && marker.nodeId() == node
                && marker.group() == group && ReplicaMoves.moveBackMark(group, marker.replica()).equals(r.incarnation())
                && !Files.exists(movedAside(data, group, marker.replica()));
    }

    /** Where a move back puts the group directory of the id it replaced. */
    static Path movedAside(Path data, int group, int replica) {
        return data.resolve("moved-group-" + group + "-replica-" + replica);
    }

    /**
     * A move back onto this node: the old replica's state is discarded (rule M7: its promises and votes never count
     * again), kept aside as {@link #movedAside}, and the group starts empty under the new id {@code current}, a learner
     * the group's leader catches up and promotes. A crash after the directory was put aside and before the new marker
     * is written leaves no group directory: the next start takes it for a lost one and allocates yet another id, safe
     * as the skipped one never ran.
     */
    private static void reset(Path data, int g, Marker old, int current) throws IOException {
        Path dir = NodeStorage.groupDir(data, g);
        Files.move(dir, movedAside(data, g, old.replica()));
        DurableFiles.syncDirectory(data);
        Files.createDirectories(dir);
        write(dir, new Marker(old.cluster(), old.nodeId(), g, current));
        LOG.warn("node {}: group {}'s replica moves back onto this node under replica id {} (its id {} was removed "
                + "from the group): the old replica's state is put aside in {}, the group starts empty and catches up",
                old.nodeId(), g, current, old.replica(), movedAside(data, g, old.replica()));
    }

    /** A new id of {@code replica}'s node in {@code group}'s map (compare-and-set): {old id, new id}. */
    private static int[] newReplica(ClusterMetadata metadata, int group, NodeIncarnation replica, UUID nodeIncarnation) {
        while (true) {
            Versioned<ReplicaMap> current = metadata.replicaMap(group);
            int old = current.value().currentId(replica.nodeId());
            ReplicaMap map = current.value().withIncarnation(replica, nodeIncarnation, Rejoin.UNIVERSE);
            if (metadata.compareAndSetReplicaMap(group, current.version(), map)) {
                return new int[] {old, map.currentId(replica.nodeId())};
            }
        }
    }

    /** The marker of group directory {@code dir}, or empty if there is none. @throws CorruptStateException if damaged */
    static Optional<Marker> read(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        byte[] bytes = MarkerFile.readIfPresent(file);
        return bytes == null ? Optional.empty() : Optional.of(decode(bytes, file));
    }

    static void write(Path dir, Marker marker) throws IOException {
        MarkerFile.write(dir.resolve(FILE), "# Synod group replica identity: the replica whose acceptor state this group "
                + "directory holds.\n", body(marker));
    }

    private static String body(Marker m) {
        return "format=1\ncluster=" + m.cluster() + "\nnode.id=" + m.nodeId() + "\ngroup=" + m.group() + "\nreplica.id="
                + m.replica() + "\n";
    }

    static Marker decode(byte[] bytes, Path file) throws CorruptStateException {
        String prefix = "group identity file " + file + " is damaged (it names the replica whose state the group "
                + "directory holds): ";
        Map<String, String> values = MarkerFile.parse(bytes, KEYS, prefix);
        if (!"1".equals(values.get("format"))) {
            throw new CorruptStateException(prefix + "format " + MarkerFile.abbreviate(values.get("format")) + " unknown");
        }
        Marker m;
        try {
            m = new Marker(values.get("cluster"), Integer.parseInt(values.get("node.id")),
                    Integer.parseInt(values.get("group")), Integer.parseInt(values.get("replica.id")));
        } catch (NumberFormatException e) {
            throw new CorruptStateException(prefix + e.getMessage());
        }
        if (!MarkerFile.crcHex(body(m)).equals(values.get("crc32c"))) {
            throw new CorruptStateException(prefix + "crc32c does not match its content");
        }
        return m;
    }
}
