package io.synod.server.client;

import io.synod.client.SynodPermissionException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.EncoderException;
import io.synod.client.TlsFiles;
import io.synod.client.codec.ClientFrameDecoder;
import io.synod.client.codec.ClientFrameEncoder;
import io.synod.protocol.ClientFrame;
import io.synod.protocol.ClientReply;
import io.synod.protocol.KvCommand;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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

    /**
     * One blocking connection. The bytes on the wire are made and read by the client protocol's one codec, the
     * {@link ClientFrameEncoder}/{@link ClientFrameDecoder} pair the SDK and the server's client port use, run here on
     * an {@link EmbeddedChannel} over the socket's streams: no second framing to keep in step with theirs.
     */
    private static final class Connection implements AutoCloseable {
        final Socket socket;
        final InputStream in;
        final OutputStream out;
        final EmbeddedChannel codec;
        final byte[] readBuffer = new byte[8192];

        Connection(InetSocketAddress address, int timeoutMillis, SSLContext tls, int maxFrameBytes) throws IOException {
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
            in = socket.getInputStream();
            out = new BufferedOutputStream(socket.getOutputStream());
            codec = new EmbeddedChannel(new ClientFrameEncoder(maxFrameBytes), new ClientFrameDecoder(maxFrameBytes));
        }

        /** Sends {@code request} and reads the next frame; a frame the decoder refuses is an {@link IOException} naming why. */
        ClientFrame call(ClientFrame request) throws IOException {
            try {
                codec.writeOutbound(request);
            } catch (EncoderException e) {
                throw new IOException("request not sent: " + rootMessage(e), e);
            }
            for (ByteBuf encoded = codec.readOutbound(); encoded != null; encoded = codec.readOutbound()) {
                try {
                    encoded.readBytes(out, encoded.readableBytes());
                } finally {
                    encoded.release();
                }
            }
            out.flush();
            while (true) {
                ClientFrame reply = codec.readInbound();
                if (reply != null) {
                    return reply;
                }
                int read = in.read(readBuffer);
                if (read < 0) {
                    throw new EOFException("server closed the connection before its reply was complete");
                }
                try {
                    // Copied: the decoder keeps an incomplete frame's bytes across reads, and readBuffer is reused.
                    codec.writeInbound(Unpooled.copiedBuffer(readBuffer, 0, read));
                } catch (DecoderException e) {
                    throw new IOException("server sent a bad frame: " + rootMessage(e), e);
                }
            }
        }

        private static String rootMessage(Throwable e) {
            Throwable cause = e;
            while (cause.getCause() != null && cause.getMessage() != null && cause.getMessage().equals(String.valueOf(cause.getCause()))) {
                cause = cause.getCause();
            }
            return cause.getMessage();
        }

        @Override
        public void close() throws IOException {
            try {
                codec.finishAndReleaseAll();
            } finally {
                socket.close();
            }
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
     * {@link IOException} when no server answered with a final status in time, and
     * {@link SynodPermissionException} when the server refused this client's user the command.
     */
    public Result execute(byte[] payload, long deadlineMillis) throws IOException {
        long sequence = nextSequence++;
        long deadline = System.nanoTime() + deadlineMillis * 1_000_000L;
        IOException last = null;
        int target = preferred;
        while (System.nanoTime() < deadline) {
            try {
                ClientFrame reply = connection(target).call(new ClientFrame.Command(nextRequest++, clientId, sequence,
                        payload));
                if (!(reply instanceof ClientFrame.Response r)) {
                    throw new IOException("server answered with " + reply.getClass().getSimpleName());
                }
                if (r.status() == ClientFrame.STATUS_PERMISSION_DENIED) {
                    throw SynodPermissionException.fromResponse(r.result()); // Final: retrying will not help.
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
        try (Connection c = new Connection(server, timeoutMillis, tls == null ? null : tls.jdkClientContext(), maxFrameBytes)) {
            ClientFrame reply = c.call(new ClientFrame.StatusQuery(1));
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
            c = new Connection(servers.get(node), timeoutMillis, tls, maxFrameBytes);
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
