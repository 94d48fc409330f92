package io.synod.server.node;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.synod.coordination.Placement;
import io.synod.server.transport.PeerNetwork;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's links to its peers as the node set grows (docs/membership.md, "Adding a node"): each link's meters, and
 * a link to every node that joins the cluster while this one runs, from the placement's watch (the joined node's
 * address as it recorded it). The founding nodes' links are made from the configuration at start.
 */
final class PeerLinks {
    private static final Logger LOG = LoggerFactory.getLogger(PeerLinks.class);

    private PeerLinks() {
    }

    /** The link to {@code peer}'s meters: bytes, frames dropped, frames, messages, flushes. */
    static void registerMetrics(MeterRegistry registry, PeerNetwork network, int peer) {
        PeerNetwork.LinkStats stats = network.stats(peer);
        String id = Integer.toString(peer);
        FunctionCounter.builder("synod.peer.sent", stats, s -> s.bytesSent.get()).baseUnit("bytes")
                .tag("peer", id).register(registry);
        FunctionCounter.builder("synod.peer.frames.dropped", stats, s -> s.framesDropped.get())
                .tag("peer", id).register(registry);
        FunctionCounter.builder("synod.peer.frames", stats, s -> s.framesSent.get())
                .description("frames sent (one carries every group's messages of a pass)")
                .tag("peer", id).register(registry);
        FunctionCounter.builder("synod.peer.messages", stats, s -> s.messagesSent.get())
                .tag("peer", id).register(registry);
        FunctionCounter.builder("synod.peer.flushes", stats, s -> s.flushes.get())
                .tag("peer", id).register(registry);
    }

    /** From now on, connects to every node that joins (and to any that joined since this node read the placement). */
    static void follow(int self, Placements placements, PeerNetwork network, MeterRegistry registry) {
        placements.onChange(p -> add(self, p, network, registry));
        add(self, placements.current(), network, registry);
    }

    private static void add(int self, Placement p, PeerNetwork network, MeterRegistry registry) {
        for (Map.Entry<Integer, String> e : p.joined().entrySet()) {
            if (e.getKey() == self) {
                continue;
            }
            try {
                if (network.addPeer(e.getKey(), NodeJoin.parseAddress(e.getValue()).peer())) {
                    registerMetrics(registry, network, e.getKey());
                }
            } catch (RuntimeException ex) { // an address that conflicts with this node's configuration
                LOG.error("node {}: no link to joined node {}: {}", self, e.getKey(), ex.getMessage());
            }
        }
    }
}
