package io.synod.recipes.lock;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on 127.0.0.1 between one ZooKeeper client and the server that can swallow the server's replies and
 * then cut the connection: the way to make "the create succeeded on the server but its reply was lost" happen on
 * demand.
 */
final class ReplyDroppingProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean dropReplies;

    ReplyDroppingProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getByName(ZkTestSupport.HOST));
        Thread acceptor = new Thread(this::acceptLoop, "proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String connectString() {
        return ZkTestSupport.HOST + ":" + listener.getLocalPort();
    }

    /** While set, bytes from the server are read and discarded; requests still reach the server. */
    void dropReplies(boolean drop) {
        dropReplies = drop;
    }

    /** Closes every proxied connection; the client sees connection loss and reconnects through the proxy. */
    void cutConnections() {
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(ZkTestSupport.HOST, targetPort);
                sockets.add(client);
                sockets.add(server);
                pump(client, server, false);
                pump(server, client, true);
            } catch (IOException e) {
                // The listener was closed, or the server is down: the client retries the connection.
            }
        }
    }

    private void pump(Socket from, Socket to, boolean carriesReplies) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    if (!(carriesReplies && dropReplies)) {
                        out.write(buffer, 0, read);
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // Connection cut: close both sides below.
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "proxy-pump");
        pump.setDaemon(true);
        pump.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Already closed.
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        cutConnections();
    }
}
