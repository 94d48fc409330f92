package io.synod.server.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Where a node wants the cluster's groups placed (docs/membership.md, "Placement"): {@code replicas}, the replicas per
 * group N (default: every node, so every node hosts a voter of every group), and {@code node.zones}, each node's zone
 * in node-id order (default: none). Both are agreed through ZooKeeper's placement record: a node whose settings
 * differ from the recorded ones refuses to start.
 *
 * @param replicas the replicas per group, 1..M
 * @param zones    one zone per node, or empty
 */
public record PlacementSettings(int replicas, List<String> zones) {
    public PlacementSettings {
        zones = List.copyOf(zones);
    }

    static void addKeys(Map<String, String[]> k) {
        k.put("replicas", new String[] {"all", "replicas per group N, 1..node count, or all (every node hosts every group); "
                + "with fewer, groups are placed in balance and the other nodes run spares (uncoded groups "
                + "only); docs/membership.md"});
        k.put("node.zones", new String[] {"", "each node's zone, comma-separated in node-id order (e.g. a,a,b,b); no two "
                + "replicas of a group share a zone when there are at least 'replicas' zones"});
    }

    static PlacementSettings parse(Properties p, int nodes) throws ConfigException {
        String text = p.getProperty("replicas", "all").trim();
        int replicas;
        if (text.equals("all")) {
            replicas = nodes;
        } else {
            try {
                replicas = Integer.parseInt(text);
            } catch (NumberFormatException e) {
                throw new ConfigException("replicas: '" + text + "' is neither all nor an integer");
            }
            if (replicas < 1 || replicas > nodes) {
                throw new ConfigException("replicas: " + replicas + " is outside 1.." + nodes + " (the node count)");
            }
        }
        String zoneText = p.getProperty("node.zones", "").trim();
        List<String> zones = new ArrayList<>();
        if (!zoneText.isEmpty()) {
            for (String z : zoneText.split(",", -1)) {
                String zone = z.trim();
                if (!zone.matches("[A-Za-z0-9_.-]{1,64}")) {
                    throw new ConfigException("node.zones: zone '" + zone + "' must be 1..64 of [A-Za-z0-9_.-]");
                }
                zones.add(zone);
            }
            if (zones.size() != nodes) {
                throw new ConfigException("node.zones: " + zones.size() + " zones for " + nodes + " nodes (name one per "
                        + "node, in node-id order)");
            }
        }
        return new PlacementSettings(replicas, zones);
    }

    /** Whether every node hosts every group (today's layout). */
    public boolean everyNode(int nodes) {
        return replicas == nodes;
    }

    String toProperties(int nodes) {
        return "replicas=" + (replicas == nodes ? "all" : Integer.toString(replicas))
                + (zones.isEmpty() ? "" : "\nnode.zones=" + String.join(",", zones)) + "\n";
    }
}
