package io.synod.client;

import io.synod.protocol.ClientFrame;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * Asks a server for the placement ({@link ClientFrame.PlacementQuery}) on a connection of its own, closed after the
 * answer: a server older than the frame closes the connection it came on, and that must not break the connection the
 * client's requests use. What it learns goes to {@link PlacementRoutes}. Touched only on the engine's event loop.
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
        ServerConnection conn = new ServerConnection(nodes.get(ask));
        conn.probeNode = ask;
        long id = nextRequestId++;
        conn.send(id, new ClientFrame.PlacementQuery(id));
        channels.connect(conn, (c, why) -> answered(c, null));
    }

    /** The answer on a probe connection, or null if it failed or closed first (an older server, or one down). */
    void answered(ServerConnection conn, ClientFrame frame) {
        if (conn.lost) {
            return;
        }
        conn.lost = true;
        placed.answer(conn.probeNode, frame, System.nanoTime());
        conn.channel.close();
        changed.run();
    }
}
