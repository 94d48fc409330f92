package io.synod.server.security;

import io.synod.client.TlsFiles;
import io.synod.server.config.ConfigException;
import io.synod.server.config.NetworkLimits;
import io.synod.server.transport.ConnectionPolicy;
import io.synod.server.transport.FrameBudget;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import javax.net.ssl.SSLSocket;

/** Shared by the TLS tests: a CA with nodes 0..2 of cluster "c" and client "alice", and policies over it. */
final class TlsTestSupport {
    static final String CLUSTER = "c";

    private TlsTestSupport() {}

    static CertificateAuthority ca(Path dir) throws IOException {
        CertificateAuthority ca = CertificateAuthority.create(dir, CLUSTER);
        for (int i = 0; i < 3; i++) {
            ca.createNode(i, CLUSTER, List.of());
        }
        ca.createClient("alice");
        return ca;
    }

    /** The policy of a node with {@code tls} (null: insecure) and the limits {@code keys} (key=value) set. */
    static ConnectionPolicy policy(TlsFiles tls, String... keys) throws ConfigException {
        Properties p = new Properties();
        for (String k : keys) {
            int eq = k.indexOf('=');
            p.setProperty(k.substring(0, eq), k.substring(eq + 1));
        }
        NetworkLimits limits = NetworkLimits.parse(p, 16 << 20);
        return new ConnectionPolicy(tls == null ? null : new ServerTls(tls, limits.handshakeTimeoutMillis()), limits,
                new FrameBudget(limits.frameBudgetBytes()));
    }

    /** A TLS socket to {@code address} presenting {@code files}' certificate, handshake done. */
    static SSLSocket connect(TlsFiles files, InetSocketAddress address) throws IOException {
        SSLSocket s = (SSLSocket) files.jdkClientContext().getSocketFactory().createSocket(address.getAddress(),
                address.getPort());
        s.setSoTimeout(10_000);
        s.startHandshake();
        return s;
    }
}
