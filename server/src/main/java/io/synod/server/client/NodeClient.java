package io.synod.server.client;

import io.synod.client.TlsFiles;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientFrameCodec;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A minimal blocking client of the client protocol (one request at a time per connection), used
 * by {@code synod demo}, {@code synod cluster} and the integration tests; the Java SDK reuses the
 * protocol. It sends a command to any server, follows NOT_LEADER hints to the group's leader,
 * retries with the same (client id, sequence) so a retried write applies at most once, and gives
 * up after a deadline.
 */
public final class NodeClient implements AutoCloseable {
    private final Map<Integer, InetSocketAddress> servers;
    private final int maxFrameBytes;
    private final SSLContext tls;
    private final int timeoutMillis;
    private final long clientId;
    private final Map<Integer, Connection> connections = new HashMap<>();
    private long nextSequence = 1;
    private long nextRequest = 1;
    private int preferred;

    /** The outcome of one command. */
    public record Result(int group, ClientReply.Status status, long slot, byte[] result, int servedBy) {}

    private static final class Connection implements AutoCloseable {
        final Socket socket;
        final DataInputStream in;
        final DataOutputStream out;

        Connection(InetSocketAddress address, int timeoutMillis, SSLContext tls) throws IOException {
            Socket plain = new Socket();
            plain.connect(address, timeoutMillis);
            plain.setSoTimeout(timeoutMillis);
            plain.setTcpNoDelay(true);
            if (tls != null) {
                SSLSocket secure = (SSLSocket) tls.getSocketFactory().createSocket(plain, address.getHostString(),
                        address.getPort(), true);
                secure.startHandshake();
                socket = secure;
            } else {
                socket = plain;
            }
            in = new DataInputStream(socket.getInputStream());
            out = new DataOutputStream(socket.getOutputStream());
        }

        ClientFrame call(ClientFrame request, int maxFrameBytes) throws IOException {
            byte[] body = ClientFrameCodec.encode(request);
            out.writeInt(body.length);
            out.write(body);
            out.flush();
            int length = in.readInt();
            if (length < 1 || length > maxFrameBytes) {
                throw new IOException("server sent a frame length of " + length);
            }
            byte[] reply = new byte[length];
            in.readFully(reply);
            try {
                return ClientFrameCodec.decode(reply);
            } catch (IllegalArgumentException e) {
                throw new IOException("server sent a malformed frame: " + e.getMessage(), e);
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** Without TLS: for servers running with {@code insecure=true}. */
    public NodeClient(Map<Integer, InetSocketAddress> servers, long clientId, int timeoutMillis, int maxFrameBytes) {
        this(servers, clientId, timeoutMillis, maxFrameBytes, null);
    }

    /** {@code tls}: this client's certificate and the cluster CA (null: no TLS). */
    public NodeClient(Map<Integer, InetSocketAddress> servers, long clientId, int timeoutMillis, int maxFrameBytes,
            TlsFiles tls) {
        this.tls = tls == null ? null : tls.jdkClientContext();
        if (clientId <= 0) {
            throw new IllegalArgumentException("client id must be > 0");
        }
        this.servers = Map.copyOf(servers);
        this.clientId = clientId;
        this.timeoutMillis = timeoutMillis;
        this.maxFrameBytes = maxFrameBytes;
        this.preferred = servers.keySet().iterator().next();
    }

    public Result put(String key, byte[] value, long deadlineMillis) throws IOException {
        return execute(new KvCommand.Put(key, value).encode(), deadlineMillis);
    }

    public Result get(String key, long deadlineMillis) throws IOException {
        return execute(new KvCommand.Get(key).encode(), deadlineMillis);
    }

    /**
     * Runs one command to completion (OK or a final status) within {@code deadlineMillis}; throws
     * {@link IOException} when no server answered with a final status in time.
     */
    public Result execute(byte[] payload, long deadlineMillis) throws IOException {
        long sequence = nextSequence++;
        long deadline = System.nanoTime() + deadlineMillis * 1_000_000L;
        IOException last = null;
        int target = preferred;
        while (System.nanoTime() < deadline) {
            try {
                ClientFrame reply = connection(target).call(new ClientFrame.Command(nextRequest++, clientId, sequence,
                        payload), maxFrameBytes);
                if (!(reply instanceof ClientFrame.Response r)) {
                    throw new IOException("server answered with " + reply.getClass().getSimpleName());
                }
                ClientReply.Status status = r.status() >= 0 && r.status() < ClientReply.Status.values().length
                        ? ClientReply.Status.values()[r.status()] : null;
                if (status == ClientReply.Status.OK || status == ClientReply.Status.REJECTED
                        || status == ClientReply.Status.STALE_SEQUENCE) {
                    preferred = target;
                    return new Result(r.group(), status, r.slot(), r.result(), target);
                }
                // NOT_LEADER, UNKNOWN, BUSY, no group here: retry (same sequence: at most once).
                if (r.leaderHint() >= 0 && servers.containsKey(r.leaderHint()) && r.leaderHint() != target) {
                    target = r.leaderHint();
                } else {
                    target = nextServer(target);
                    pause(20);
                }
            } catch (IOException e) {
                last = e;
                drop(target);
                target = nextServer(target);
                pause(50);
            }
        }
        throw new IOException("no answer for command " + clientId + "#" + sequence + " within " + deadlineMillis + " ms"
                + (last == null ? "" : " (last error: " + last.getMessage() + ")"));
    }

    /** One server's status report; {@code tls} as in the constructor (null: no TLS). */
    public static ClientFrame.StatusReport status(InetSocketAddress server, int timeoutMillis, int maxFrameBytes, TlsFiles tls)
            throws IOException {
        try (Connection c = new Connection(server, timeoutMillis, tls == null ? null : tls.jdkClientContext())) {
            ClientFrame reply = c.call(new ClientFrame.StatusQuery(1), maxFrameBytes);
            if (!(reply instanceof ClientFrame.StatusReport s)) {
                throw new IOException("server answered a status query with " + reply.getClass().getSimpleName());
            }
            return s;
        }
    }

    private int nextServer(int current) {
        List<Integer> ids = servers.keySet().stream().sorted().toList();
        int i = ids.indexOf(current);
        return ids.get((i + 1) % ids.size());
    }

    private Connection connection(int node) throws IOException {
        Connection c = connections.get(node);
        if (c == null) {
            c = new Connection(servers.get(node), timeoutMillis, tls);
            connections.put(node, c);
        }
        return c;
    }

    private void drop(int node) {
        Connection c = connections.remove(node);
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignored) {
                // Already broken.
            }
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        for (Integer node : List.copyOf(connections.keySet())) {
            drop(node);
        }
    }
}
