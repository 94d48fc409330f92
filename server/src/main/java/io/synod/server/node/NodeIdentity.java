package io.synod.server.node;

import io.synod.coordination.ClusterMetadata;
import io.synod.coordination.ClusterPaths;
import io.synod.coordination.NodeIncarnation;
import io.synod.server.log.CorruptStateException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's identity ("incarnation"): a random id drawn on the first start of its data directory, kept in the
 * directory ({@value #FILE}) and in ZooKeeper ({@link ClusterPaths#incarnation}). An acceptor must remember its
 * highest promise and the proposals it accepted across failures (Lamport, Paxos Made Simple, section 2.2: "an
 * acceptor must remember this information even if it fails and then restarts", hence stable storage). A node
 * restarted on an empty directory has forgotten both; rejoining as a fresh acceptor could let two values be chosen
 * for one slot. ZooKeeper remembering an incarnation the directory does not hold is how such a node is recognized,
 * and {@link #establish} refuses to start it (docs/server.md, "Node identity").
 *
 * <p>File format (text, UTF-8): comment lines starting with {@code #}, then {@code format=1}, {@code cluster=},
 * {@code node.id=}, {@code incarnation=} and {@code crc32c=} (8 hex digits, CRC-32C of the four lines before it,
 * each ending in a newline; {@link MarkerFile}). Written to a temp file, fsynced, renamed, directory fsynced.
 */
public final class NodeIdentity {
    private static final Logger LOG = LoggerFactory.getLogger(NodeIdentity.class);
    public static final String FILE = "node.identity";
    static final int FORMAT = 1;
    private static final List<String> KEYS = List.of("format", "cluster", "node.id", "incarnation", "crc32c");

    private NodeIdentity() {}

    /** What {@value #FILE} records: the directory belongs to node {@code nodeId} of {@code cluster}, incarnation {@code id}. */
    public record Marker(String cluster, int nodeId, UUID incarnation) {}

    /** This node must not start on this data directory; the message says why and what to do. */
    public static final class RefusedException extends IllegalStateException {
        RefusedException(String message) {
            super(message);
        }
    }

    /**
     * Checks the data directory against ZooKeeper before any group opens its storage, creating the marker and the
     * znode on a first start (or on a directory written before incarnations existed).
     *
     * @return this node's incarnation
     * @throws RefusedException if the directory lost its state while ZooKeeper remembers the node, or belongs to
     *     another node, cluster or incarnation
     * @throws CorruptStateException if {@value #FILE} is damaged
     */
    public static UUID establish(Path dataDir, String cluster, int nodeId, ClusterMetadata metadata) throws IOException {
        return establish(dataDir, cluster, nodeId, metadata, UUID::randomUUID, null);
    }

    /**
     * How a node whose directory holds no state at all, while ZooKeeper remembers its incarnation, starts as a new
     * incarnation instead of being refused ({@link Rejoin#newIncarnation}): given the incarnation ZooKeeper remembers
     * and a new id, it records the new incarnation (and writes {@value #FILE}) and returns it.
     */
    interface Rejoiner {
        UUID rejoin(NodeIncarnation old, UUID newId) throws IOException;
    }

    static UUID establish(Path dataDir, String cluster, int nodeId, ClusterMetadata metadata, Supplier<UUID> newId)
            throws IOException {
        return establish(dataDir, cluster, nodeId, metadata, newId, null);
    }

    /** As {@link #establish(Path, String, int, ClusterMetadata)}; with a {@code rejoiner}, a wiped directory re-joins. */
    static UUID establish(Path dataDir, String cluster, int nodeId, ClusterMetadata metadata, Supplier<UUID> newId,
            Rejoiner rejoiner) throws IOException {
        String who = "node " + nodeId + " of cluster '" + cluster + "' refuses to start: ";
        String znode = new ClusterPaths(cluster).incarnation(nodeId);
        Path file = dataDir.resolve(FILE);
        String forget = "; or, accepting that risk, delete the znode " + znode + " and start again";
        Optional<Marker> marker = read(dataDir);
        Optional<NodeIncarnation> recorded = metadata.incarnation(nodeId);
        if (marker.isPresent()) {
            Marker m = marker.get();
            if (!m.cluster().equals(cluster) || m.nodeId() != nodeId) {
                throw new RefusedException(who + "its data.dir " + dataDir + " belongs to node " + m.nodeId()
                        + " of cluster '" + m.cluster() + "' (file " + file + ", incarnation " + m.incarnation()
                        + "): a wrong data.dir for this node (another node's directory, copied or configured by "
                        + "mistake); running on it would make two acceptors of one state. Point data.dir at this "
                        + "node's own directory");
            }
            NodeIncarnation known = recorded.orElseGet(() -> {
                LOG.info("node {}: ZooKeeper has no incarnation for it (a cluster from before incarnations, or a new "
                        + "ZooKeeper); recording {} from {}", nodeId, m.incarnation(), file);
                return metadata.recordIncarnation(new NodeIncarnation(nodeId, m.incarnation()));
            });
            if (!known.id().equals(m.incarnation())) {
                throw new RefusedException(who + "its data.dir " + dataDir + " belongs to incarnation "
                        + m.incarnation() + " (file " + file + "), but ZooKeeper records incarnation " + known.id()
                        + " for this node (znode " + znode + "): the directory is a copy of another incarnation's "
                        + "state, and its promises and accepted values may be older than the ones the node gave, so "
                        + "rejoining on it could lose acknowledged writes. Restore this node's own data directory"
                        + forget + " (the directory's incarnation is then recorded)");
            }
            return m.incarnation();
        }
        boolean state = holdsGroupState(dataDir);
        if (recorded.isPresent() && !state && rejoiner != null) {
            return rejoiner.rejoin(recorded.get(), newId.get()); // a wiped directory: a new incarnation, new replica ids
        }
        if (recorded.isPresent()) {
            UUID id = recorded.get().id();
            String what = state
                    ? "its data.dir " + dataDir + " holds group state but no " + FILE + ", while ZooKeeper remembers "
                            + "incarnation " + id + " of this node (znode " + znode + "): the directory is not the "
                            + "one that incarnation ran on (copied from elsewhere, or its identity file was deleted), "
                            + "and rejoining on it could lose acknowledged writes"
                    : "its data.dir " + dataDir + " holds no Synod state (no " + FILE + ", no group directories), "
                            + "but ZooKeeper remembers incarnation " + id + " of this node (znode " + znode + "): the "
                            + "node's Paxos promises and accepted values are gone, and rejoining as a fresh acceptor "
                            + "could lose acknowledged writes (an acceptor must remember them across failures, Paxos "
                            + "Made Simple section 2.2)";
            throw new RefusedException(who + what + ". Restore the data directory (a replaced disk? a wrong "
                    + "data.dir path?)" + forget);
        }
        UUID id = newId.get();
        write(dataDir, new Marker(cluster, nodeId, id));
        NodeIncarnation known = metadata.recordIncarnation(new NodeIncarnation(nodeId, id));
        if (!known.id().equals(id)) {
            throw new RefusedException(who + "another start of this node recorded incarnation " + known.id()
                    + " in ZooKeeper (znode " + znode + ") while this one created " + id + " in " + file
                    + ": two processes started node " + nodeId + " on different directories. Keep the directory "
                    + "that incarnation ran on" + forget);
        }
        LOG.info("node {}: {}; incarnation {} recorded in {} and {}", nodeId, state
                ? "data.dir " + dataDir + " predates node identities" : "first start on data.dir " + dataDir, id, file, znode);
        return id;
    }

    /** Whether the directory holds a {@code group-<g>} directory (logs, promises, RocksDB of some group). */
    static boolean holdsGroupState(Path dataDir) throws IOException {
        if (!Files.isDirectory(dataDir)) {
            return false;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dataDir, "group-*")) {
            for (Path p : entries) {
                if (Files.isDirectory(p) && p.getFileName().toString().substring("group-".length()).matches("[0-9]+")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The marker in {@code dataDir}, or empty if there is none. @throws CorruptStateException if it is damaged */
    public static Optional<Marker> read(Path dataDir) throws IOException {
        Path file = dataDir.resolve(FILE);
        byte[] bytes = MarkerFile.readIfPresent(file);
        return bytes == null ? Optional.empty() : Optional.of(decode(bytes, file));
    }

    static void write(Path dataDir, Marker marker) throws IOException {
        MarkerFile.write(dataDir.resolve(FILE), COMMENTS, body(marker));
    }

    private static final String COMMENTS = "# Synod node identity: the node and incarnation whose acceptor state this "
            + "directory holds.\n# Do not edit, delete or copy it to another node (docs/server.md, \"Node identity\").\n";

    static byte[] encode(Marker m) {
        String body = body(m);
        return (COMMENTS + body + "crc32c=" + MarkerFile.crcHex(body) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static String body(Marker m) {
        return "format=" + FORMAT + "\ncluster=" + m.cluster() + "\nnode.id=" + m.nodeId() + "\nincarnation="
                + m.incarnation() + "\n";
    }

    static Marker decode(byte[] bytes, Path file) throws CorruptStateException {
        String prefix = "identity file " + file + " is damaged (it names the node and incarnation this directory "
                + "belongs to; restore it from where the directory came from): ";
        Map<String, String> values = MarkerFile.parse(bytes, KEYS, prefix);
        if (!values.get("format").equals(Integer.toString(FORMAT))) {
            throw new CorruptStateException(prefix + "format " + MarkerFile.abbreviate(values.get("format")) + " unknown (this "
                    + "build reads " + FORMAT + ")");
        }
        Marker m;
        try {
            String node = values.get("node.id");
            if (!node.matches("[0-9]{1,9}")) {
                throw new IllegalArgumentException("node.id '" + MarkerFile.abbreviate(node) + "' is not a number");
            }
            int nodeId = Integer.parseInt(node);
            if (nodeId < 0 || nodeId > ClusterPaths.MAX_NODE_ID) {
                throw new IllegalArgumentException("node.id " + nodeId + " outside 0.." + ClusterPaths.MAX_NODE_ID);
            }
            String cluster = ClusterPaths.validClusterName(values.get("cluster"));
            String id = values.get("incarnation");
            UUID incarnation = UUID.fromString(id);
            if (!incarnation.toString().equals(id)) {
                throw new IllegalArgumentException("incarnation '" + MarkerFile.abbreviate(id) + "' is not a canonical UUID");
            }
            m = new Marker(cluster, nodeId, incarnation);
        } catch (IllegalArgumentException e) {
            throw new CorruptStateException(prefix + e.getMessage());
        }
        String expected = MarkerFile.crcHex(body(m));
        if (!expected.equals(values.get("crc32c"))) {
            throw new CorruptStateException(prefix + "crc32c " + MarkerFile.abbreviate(values.get("crc32c")) + " does not match its "
                    + "content (" + expected + ")");
        }
        return m;
    }
}
