package io.synod.coordination;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP forwarder on 127.0.0.1 between one ZooKeeper client and the server, which a test can cut to
 * partition that client from ZooKeeper (and only that client) and heal again.
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int targetPort;
    private final List<Socket> open = new ArrayList<>();
    private volatile boolean cut;
    private final Thread acceptor;

    TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "tcp-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return;
            }
            if (cut) {
                closeQuietly(client);
                continue;
            }
            try {
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                synchronized (open) {
                    open.add(client);
                    open.add(server);
                }
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                }
            } catch (IOException ignored) {
                // the peer or cut() closed the socket
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Drops every connection and refuses new ones until {@link #heal}. */
    void cut() {
        cut = true;
        synchronized (open) {
            open.forEach(TcpProxy::closeQuietly);
            open.clear();
        }
    }

    void heal() {
        cut = false;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        cut();
        listener.close();
        try {
            acceptor.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
