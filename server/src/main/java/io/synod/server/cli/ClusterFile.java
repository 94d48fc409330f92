package io.synod.server.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code DIR/cluster.json}, written by {@code synod cluster start} and read by the other cluster
 * commands: the ZooKeeper process and one line per Synod node. The format is fixed (one object per
 * line) so this class reads back exactly what it wrote; anything else is a one-line error.
 */
public record ClusterFile(String cluster, int groups, long zookeeperPid, int zookeeperPort, List<NodeEntry> nodes) {
    public record NodeEntry(int id, long pid, int peerPort, int clientPort, int metricsPort, String config, String log) {}

    public static Path path(Path dir) {
        return dir.resolve("cluster.json");
    }

    void write(Path dir) throws IOException {
        StringBuilder b = new StringBuilder();
        b.append("{\n");
        b.append(String.format("  \"cluster\": \"%s\",%n", cluster));
        b.append(String.format("  \"groups\": %d,%n", groups));
        b.append(String.format("  \"zookeeper\": {\"pid\": %d, \"port\": %d, \"connect\": \"127.0.0.1:%d\"},%n", zookeeperPid,
                zookeeperPort, zookeeperPort));
        b.append("  \"nodes\": [\n");
        for (int i = 0; i < nodes.size(); i++) {
            NodeEntry n = nodes.get(i);
            b.append(String.format("    {\"id\": %d, \"pid\": %d, \"peer\": \"127.0.0.1:%d\", \"client\": \"127.0.0.1:%d\", "
                    + "\"metrics\": \"http://127.0.0.1:%d/metrics\", \"config\": \"%s\", \"log\": \"%s\"}%s%n", n.id(), n.pid(),
                    n.peerPort(), n.clientPort(), n.metricsPort(), esc(n.config()), esc(n.log()),
                    i + 1 < nodes.size() ? "," : ""));
        }
        b.append("  ]\n}\n");
        Path tmp = dir.resolve("cluster.json.tmp");
        Files.writeString(tmp, b.toString(), StandardCharsets.UTF_8);
        Files.move(tmp, path(dir), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
    }

    private static String esc(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static final Pattern CLUSTER = Pattern.compile("\"cluster\": \"([^\"]*)\"");
    private static final Pattern GROUPS = Pattern.compile("\"groups\": (\\d+)");
    private static final Pattern ZK = Pattern.compile("\"zookeeper\": \\{\"pid\": (\\d+), \"port\": (\\d+)");
    private static final Pattern NODE = Pattern.compile("\\{\"id\": (\\d+), \"pid\": (\\d+), \"peer\": \"127.0.0.1:(\\d+)\", "
            + "\"client\": \"127.0.0.1:(\\d+)\", \"metrics\": \"http://127.0.0.1:(\\d+)/metrics\", \"config\": \"((?:[^\"\\\\]|\\\\.)*)\", "
            + "\"log\": \"((?:[^\"\\\\]|\\\\.)*)\"\\}");

    public static ClusterFile read(Path dir) throws IOException {
        Path p = path(dir);
        if (!Files.isRegularFile(p)) {
            throw new IOException("no cluster in " + dir + " (" + p + " does not exist; run 'synod cluster start' first)");
        }
        String text = Files.readString(p, StandardCharsets.UTF_8);
        Matcher c = CLUSTER.matcher(text);
        Matcher g = GROUPS.matcher(text);
        Matcher z = ZK.matcher(text);
        if (!c.find() || !g.find() || !z.find()) {
            throw new IOException(p + " is not a cluster file written by 'synod cluster start'");
        }
        List<NodeEntry> nodes = new ArrayList<>();
        Matcher n = NODE.matcher(text);
        while (n.find()) {
            nodes.add(new NodeEntry(Integer.parseInt(n.group(1)), Long.parseLong(n.group(2)), Integer.parseInt(n.group(3)),
                    Integer.parseInt(n.group(4)), Integer.parseInt(n.group(5)), unesc(n.group(6)), unesc(n.group(7))));
        }
        if (nodes.isEmpty()) {
            throw new IOException(p + " lists no nodes");
        }
        return new ClusterFile(c.group(1), Integer.parseInt(g.group(1)), Long.parseLong(z.group(1)),
                Integer.parseInt(z.group(2)), nodes);
    }

    private static String unesc(String s) {
        return s.replace("\\\"", "\"").replace("\\\\", "\\");
    }

    ClusterFile withNode(NodeEntry updated) {
        List<NodeEntry> next = new ArrayList<>(nodes);
        next.replaceAll(e -> e.id() == updated.id() ? updated : e);
        return new ClusterFile(cluster, groups, zookeeperPid, zookeeperPort, next);
    }

    /** This file with a node that joined the cluster ({@code synod cluster add-node}) after the others. */
    ClusterFile withAddedNode(NodeEntry added) {
        List<NodeEntry> next = new ArrayList<>(nodes);
        next.add(added);
        return new ClusterFile(cluster, groups, zookeeperPid, zookeeperPort, next);
    }
}
