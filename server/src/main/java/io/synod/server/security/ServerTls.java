package io.synod.server.security;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.synod.client.TlsFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's TLS contexts (JDK provider), built from its PEM files and rebuilt when any of them changes:
 * every new connection first compares the files' modification time, size and inode with those the
 * current contexts were built from, so replaced certificates take effect on the next connection without
 * a restart (existing connections keep theirs). Files that fail to load (say, half written) leave the
 * previous contexts in use, with a warning. Both directions require a certificate of the cluster CA:
 * the server side asks the client for one ({@link ClientAuth#REQUIRE}); the client side (outbound peer
 * links) presents this node's.
 */
public final class ServerTls {
    private static final Logger LOG = LoggerFactory.getLogger(ServerTls.class);

    private record Loaded(List<Object> stamp, SslContext server, SslContext client) {}

    private final TlsFiles files;
    private final int handshakeTimeoutMillis;
    private volatile Loaded loaded;

    /** Loads the files now: a node whose files do not load refuses to start. */
    public ServerTls(TlsFiles files, int handshakeTimeoutMillis) {
        this.files = files;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
        try {
            this.loaded = load(stamp());
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot load TLS files (tls.ca " + files.ca() + ", tls.cert " + files.cert()
                    + ", tls.key " + files.key() + "): " + TlsFiles.rootMessage(e), e);
        }
    }

    public TlsFiles files() {
        return files;
    }

    /** A server-side handler for an accepted connection: requires a client certificate of the CA. */
    public SslHandler serverHandler(ByteBufAllocator alloc) {
        return withTimeout(current().server.newHandler(alloc));
    }

    /** A client-side handler for an outbound peer connection: presents this node's certificate. */
    public SslHandler clientHandler(ByteBufAllocator alloc) {
        return withTimeout(current().client.newHandler(alloc));
    }

    private SslHandler withTimeout(SslHandler h) {
        h.setHandshakeTimeoutMillis(handshakeTimeoutMillis);
        return h;
    }

    private Loaded current() {
        Loaded now = loaded;
        List<Object> stamp;
        try {
            stamp = stamp();
        } catch (IOException e) {
            LOG.warn("TLS files unreadable, keeping the loaded certificates: {}", e.toString());
            return now;
        }
        if (stamp.equals(now.stamp)) {
            return now;
        }
        synchronized (this) {
            if (!stamp.equals(loaded.stamp)) {
                try {
                    loaded = load(stamp);
                    LOG.info("TLS files changed: reloaded {} and {}", files.cert(), files.ca());
                } catch (IOException | RuntimeException e) {
                    LOG.warn("TLS files changed but do not load, keeping the previous certificates: {}",
                            TlsFiles.rootMessage(e));
                    loaded = new Loaded(stamp, loaded.server, loaded.client); // Not retried until they change again.
                }
            }
            return loaded;
        }
    }

    private List<Object> stamp() throws IOException {
        List<Object> out = new ArrayList<>();
        for (Path p : List.of(files.ca(), files.cert(), files.key())) {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            out.add(a.lastModifiedTime());
            out.add(a.size());
            out.add(a.fileKey());
        }
        return out;
    }

    private Loaded load(List<Object> stamp) throws SSLException {
        SslContext server = SslContextBuilder.forServer(files.cert().toFile(), files.key().toFile())
                .sslProvider(TlsFiles.provider()).trustManager(files.ca().toFile()).clientAuth(ClientAuth.REQUIRE)
                .protocols(files.protocols()).build();
        return new Loaded(stamp, server, files.clientContext());
    }
}
