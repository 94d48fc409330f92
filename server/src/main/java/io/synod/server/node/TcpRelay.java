package io.synod.server.node;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A plain TCP relay on 127.0.0.1 in front of one address. {@code synod demo} puts one between each
 * in-process node and ZooKeeper so that "killing" a node can cut its ZooKeeper link the way a
 * crashed process does: the session is not closed, it expires on the server after the session
 * timeout (closing the session would be a clean shutdown, not a crash).
 */
public final class TcpRelay implements AutoCloseable {
    private final InetSocketAddress target;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean cut;

    public TcpRelay(InetSocketAddress target) throws IOException {
        this(target, 0);
    }

    /**
     * A relay listening on {@code listenPort} of 127.0.0.1 (0: any free port). A relay that was
     * {@link #cut()} is healed by a new one on its port, so the processes that dial it need no new
     * address ({@code synod nemesis} partitions this way).
     */
    public TcpRelay(InetSocketAddress target, int listenPort) throws IOException {
        this(target, new InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort));
    }

    /**
     * A relay listening on {@code listen}: {@code synod nemesis --net namespaces} listens on an address
     * of the bridge the run created, so that processes inside its network namespaces reach ZooKeeper.
     */
    public TcpRelay(InetSocketAddress target, InetSocketAddress listen) throws IOException {
        this.target = target;
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(listen, 50);
        Thread acceptor = new Thread(this::acceptLoop, "synod-relay-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    private void acceptLoop() {
        while (!cut) {
            try {
                Socket client = server.accept();
                if (cut) {
                    client.close();
                    return;
                }
                Socket upstream = new Socket();
                try {
                    upstream.connect(target, 5_000);
                } catch (IOException down) {
                    // The target is down: refuse this connection, as the target itself would, so the
                    // dialer retries instead of writing into a connection that leads nowhere.
                    closeQuietly(client);
                    closeQuietly(upstream);
                    continue;
                }
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                if (cut) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                }
            } catch (IOException e) {
                // Either side closed: close both below.
            }
            closeQuietly(from);
            closeQuietly(to);
        }, "synod-relay-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Whether {@link #cut()} was called. */
    public boolean isCut() {
        return cut;
    }

    /** Cuts every connection and refuses new ones, like a host that vanished. */
    public void cut() {
        cut = true;
        closeQuietly(server);
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // Nothing to do.
        }
    }

    @Override
    public void close() {
        cut();
    }
}
