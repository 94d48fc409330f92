package io.synod.server.config;

import java.util.Collections;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The {@code peer.delay.ms} keys of a configuration: parsed and written back. */
final class PeerDelays {
    private PeerDelays() {}

    /**
     * The outbound delay to every other node: {@code peer.delay.ms}, overridden per peer by
     * {@code peer.delay.ms.<nodeId>} (a row of the latency matrix). Only nonzero delays are in the map.
     */
    static Map<Integer, Integer> parse(Properties p, Set<Integer> ids, int self) throws ConfigException {
        int all = ServerConfig.integer(p, "peer.delay.ms", 0, ServerConfig.MAX_PEER_DELAY_MILLIS);
        Map<Integer, Integer> out = new TreeMap<>();
        for (int id : ids) {
            if (id != self && all > 0) {
                out.put(id, all);
            }
        }
        for (String key : new TreeSet<>(p.stringPropertyNames())) {
            if (!key.startsWith(ServerConfig.PEER_DELAY_PREFIX)) {
                continue;
            }
            String suffix = key.substring(ServerConfig.PEER_DELAY_PREFIX.length());
            int peer;
            try {
                peer = Integer.parseInt(suffix);
            } catch (NumberFormatException e) {
                throw new ConfigException(key + ": '" + suffix + "' is not a node id (expected " + ServerConfig.PEER_DELAY_PREFIX + "<nodeId>)");
            }
            if (!ids.contains(peer)) {
                throw new ConfigException(key + ": node " + peer + " is not among nodes " + ids);
            }
            if (peer == self) {
                throw new ConfigException(key + ": node " + peer + " is this node; a delay applies to links to other nodes");
            }
            int delay = ServerConfig.integer(p, key, 0, ServerConfig.MAX_PEER_DELAY_MILLIS);
            if (delay > 0) {
                out.put(peer, delay);
            } else {
                out.remove(peer);
            }
        }
        return Collections.unmodifiableMap(out);
    }

    static String toProperties(Map<Integer, Integer> peerDelayMillis) {
        StringBuilder b = new StringBuilder();
        peerDelayMillis.forEach((peer, delay) -> b.append(ServerConfig.PEER_DELAY_PREFIX).append(peer).append('=')
                .append(delay).append('\n'));
        return b.toString();
    }
}
