package io.synod.client;

import io.synod.protocol.ClientFrame;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * Asks a server for the placement ({@link ClientFrame.PlacementQuery}) on a connection of its own, closed after the
 * answer: a server older than the frame closes the connection it came on, and that must not break the connection the
 * client's requests use. The query names the features the SDK uses ({@link ClientFrame#FEATURE_ROUTED_ADMIN}); a server
 * older than that byte closes the connection on it too, and is asked again without it. What it learns goes to
 * {@link PlacementRoutes}. Touched only on the engine's event loop.
 */
final class PlacementProbe {
    private final ClientChannels channels;
    private final PlacementRoutes placed;
    /** Runs after each answer or failure (the engine checks whether it is ready). */
    private final Runnable changed;
    private long nextRequestId = 1;

    PlacementProbe(ClientChannels channels, PlacementRoutes placed, Runnable changed) {
        this.channels = channels;
        this.placed = placed;
        this.changed = changed;
    }

    /** Asks {@code node} (if unknown, the lowest known node) when {@link PlacementRoutes#shouldAsk} says so. */
    void ask(int node, Map<Integer, InetSocketAddress> nodes, long nowNanos) {
        int ask = nodes.containsKey(node) ? node : nodes.keySet().stream().min(Integer::compare).orElse(-1);
        if (ask < 0 || !placed.shouldAsk(ask, nowNanos)) {
            return;
        }
        query(ask, nodes.get(ask), placed.featuresFor(ask, nowNanos));
    }

    private void query(int node, InetSocketAddress address, int features) {
        ServerConnection conn = new ServerConnection(address);
        conn.probeNode = node;
        conn.probeFeatures = features;
        long id = nextRequestId++;
        conn.send(id, new ClientFrame.PlacementQuery(id, features));
        channels.connect(conn, (c, why) -> answered(c, null));
    }

    /** The answer on a probe connection, or null if it failed or closed first (an older server, or one down). */
    void answered(ServerConnection conn, ClientFrame frame) {
        if (conn.lost) {
            return;
        }
        conn.lost = true;
        conn.channel.close();
        if (frame == null && conn.probeFeatures != 0) {
            // A server older than the features byte closes the connection on it: ask again at once without it (the
            // query stays in flight), as a query from before the byte, which such a server answers.
            placed.featuresRefused(conn.probeNode, System.nanoTime());
            query(conn.probeNode, conn.address, 0);
            return;
        }
        placed.answer(conn.probeNode, frame, System.nanoTime());
        changed.run();
    }
}
