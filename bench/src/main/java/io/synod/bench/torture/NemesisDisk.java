package io.synod.bench.torture;

import io.synod.bench.kv.ProcessCluster;
import io.synod.protocol.ClientFrame;
import io.synod.server.cli.ClusterFile;
import io.synod.server.client.NodeClient;
import io.synod.server.config.ConfigException;
import io.synod.server.config.ServerConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code disk-full} fault (root only): a node's data directory moves onto a small ext4 filesystem
 * in a loop-mounted image of the run directory, and a filler file takes all its free space. ext4 rather
 * than a size-limited tmpfs: tmpfs ignores fsync, and the rule under test is what the replica does when
 * a write or an fsync fails (docs/server.md, the fsyncgate rule: it stops and acknowledges nothing
 * that is not durable). Healing moves the data back to the node's own directory (space returns) and
 * restarts the node: it must recover from what it made durable. {@link #close()} does the same for a
 * node still on an image, without the restart.
 */
final class NemesisDisk implements AutoCloseable {
    /** Free space the image adds to the data it receives: a log segment (16 MB preallocated) and RocksDB's files. */
    private static final long HEADROOM_BYTES = 96L << 20;

    private final ProcessCluster cluster;
    private final NemesisNet net;
    private final Map<Integer, Path> mounted = new TreeMap<>();

    NemesisDisk(ProcessCluster cluster, NemesisNet net) {
        this.cluster = cluster;
        this.net = net;
    }

    /** Null when this process may loop-mount filesystems (root with mkfs.ext4), else the one-line reason. */
    static String whyNotAvailable() {
        try {
            String uid = NemesisNet.run(List.of("id", "-u")).strip();
            if (!uid.equals("0")) {
                return "the disk-full fault needs root (it loop-mounts a small ext4 image); this run has uid " + uid;
            }
            NemesisNet.run(List.of("mkfs.ext4", "-V"));
            return null;
        } catch (IOException e) {
            return "the disk-full fault needs mkfs.ext4: " + e.getMessage();
        }
    }

    /** Puts {@code node}'s data on a small filesystem of its own: kill, move, restart. */
    void mount(int node) throws IOException {
        Path data = dataDir(node);
        if (!mounted.containsKey(node)) {
            NemesisNet.killIfRunning(cluster, node);
            long used = Long.parseLong(NemesisNet.run(List.of("du", "-sb", data.toString())).split("\\s+")[0]);
            Path image = cluster.dir().resolve("disk-node-" + node + ".img");
            Path saved = data.resolveSibling("data.moving");
            NemesisNet.run(List.of("truncate", "-s", Long.toString(used + HEADROOM_BYTES), image.toString()));
            NemesisNet.run(List.of("mkfs.ext4", "-q", "-F", "-m", "0", image.toString()));
            Files.move(data, saved);
            Files.createDirectories(data);
            NemesisNet.run(List.of("mount", "-o", "loop", image.toString(), data.toString()));
            mounted.put(node, image);
            NemesisNet.run(List.of("cp", "-a", saved + "/.", data + "/"));
            NemesisNet.run(List.of("rm", "-rf", saved.toString()));
            net.restart(node);
        }
    }

    /** Fills the free space of {@code node}'s filesystem ({@link #mount} first). */
    String fill(int node) throws IOException {
        Path data = dataDir(node);
        long filled = 0;
        byte[] chunk = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(data.resolve("nemesis-filler"))) {
            for (int i = 0; i < 100_000; i++) {
                out.write(chunk);
                filled += chunk.length;
            }
        } catch (IOException full) {
            // No space left: the point.
        }
        return String.format("node %d data on a %d MB ext4 image, filled with %d MB", node,
                Files.size(mounted.get(node)) >> 20, filled >> 20);
    }

    /** Whether every group of {@code node} still reports SERVING (false: the replica stopped, or the node is gone). */
    boolean serving(int node) throws IOException {
        ClusterFile file = cluster.file();
        for (ClusterFile.NodeEntry n : file.nodes()) {
            if (n.id() == node) {
                try {
                    ClientFrame.StatusReport r = NodeClient.status(new InetSocketAddress("127.0.0.1", n.clientPort()), 1_000,
                            16 << 20, cluster.clientTls());
                    return r.groups().stream().allMatch(g -> g.state() == ClientFrame.GroupStatus.SERVING);
                } catch (IOException down) {
                    return false;
                }
            }
        }
        return false;
    }

    /**
     * Space returns: the filler goes, the node is stopped, its data moves back to its own directory
     * (the image is unmounted and deleted) and it restarts there, from what it made durable.
     */
    void heal(int node) throws IOException {
        unmount(node);
        net.restart(node);
    }

    private void unmount(int node) throws IOException {
        Path image = mounted.remove(node);
        if (image == null) {
            return;
        }
        NemesisNet.killIfRunning(cluster, node);
        Path data = dataDir(node);
        Path saved = data.resolveSibling("data.moving");
        Files.deleteIfExists(data.resolve("nemesis-filler"));
        Files.createDirectories(saved);
        NemesisNet.run(List.of("cp", "-a", data + "/.", saved + "/"));
        NemesisNet.run(List.of("umount", data.toString()));
        Files.delete(data);
        Files.move(saved, data);
        Files.delete(image);
    }

    private Path dataDir(int node) throws IOException {
        for (ClusterFile.NodeEntry n : cluster.file().nodes()) {
            if (n.id() == node) {
                try {
                    return ServerConfig.load(Path.of(n.config()), List.of()).dataDir().toAbsolutePath();
                } catch (ConfigException e) {
                    throw new IOException("node " + node + ": " + e.getMessage(), e);
                }
            }
        }
        throw new IOException("no node " + node + " in " + cluster.dir());
    }

    /** Stops each node still on an image, copies its data back to its directory, unmounts and deletes the image. */
    @Override
    public void close() {
        for (int node : List.copyOf(mounted.keySet())) {
            try {
                unmount(node);
            } catch (IOException failed) {
                System.err.println("nemesis: disk-full cleanup of node " + node + ": " + failed.getMessage());
            }
        }
    }
}
