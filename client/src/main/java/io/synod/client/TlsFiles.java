package io.synod.client;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * The PEM files of one TLS identity: the cluster CA that peers must chain to, this party's certificate
 * and its PKCS#8 private key, and the TLS versions allowed (TLSv1.3 unless TLSv1.2 is added). The same
 * names are used by servers ({@code tls.ca}, {@code tls.cert}, {@code tls.key}), the SDK and the CLI;
 * {@code synod cert} writes them into one directory with the names {@link #node} and {@link #client} give.
 */
public record TlsFiles(Path ca, Path cert, Path key, List<String> protocols) {
    /** TLS 1.3 only: the default everywhere. */
    public static final List<String> TLS13 = List.of("TLSv1.3");

    /** The CA certificate's file name in a certificate directory. */
    public static final String CA_CERT = "ca.crt";

    public TlsFiles {
        Objects.requireNonNull(ca, "ca");
        Objects.requireNonNull(cert, "cert");
        Objects.requireNonNull(key, "key");
        protocols = List.copyOf(protocols);
        for (String p : protocols) {
            if (!p.equals("TLSv1.3") && !p.equals("TLSv1.2")) {
                throw new IllegalArgumentException("TLS protocol must be TLSv1.3 or TLSv1.2, got '" + p + "'");
            }
        }
        if (protocols.isEmpty()) {
            throw new IllegalArgumentException("no TLS protocol given");
        }
    }

    /** Node {@code nodeId}'s files in certificate directory {@code dir}: ca.crt, node-ID.crt, node-ID.key. */
    public static TlsFiles node(Path dir, int nodeId) {
        return new TlsFiles(dir.resolve(CA_CERT), dir.resolve("node-" + nodeId + ".crt"), dir.resolve("node-" + nodeId + ".key"),
                TLS13);
    }

    /** Client {@code user}'s files in certificate directory {@code dir}: ca.crt, client-USER.crt, client-USER.key. */
    public static TlsFiles client(Path dir, String user) {
        return new TlsFiles(dir.resolve(CA_CERT), dir.resolve("client-" + user + ".crt"), dir.resolve("client-" + user + ".key"),
                TLS13);
    }

    /** Whether all three files exist. */
    public boolean exist() {
        return Files.isRegularFile(ca) && Files.isRegularFile(cert) && Files.isRegularFile(key);
    }

    /**
     * The TLS implementation: OpenSSL through netty-tcnative when it is on the classpath (Synod does not
     * ship it; an operator may add it for speed), otherwise the JDK's. Both speak the same protocols
     * with the same PEM files.
     */
    public static SslProvider provider() {
        return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /**
     * A client-side context ({@link #provider()}): presents {@link #cert}, trusts only {@link #ca}. The server's
     * host name is not checked: a server is authentic when its certificate chains to the cluster CA, which
     * signs only the cluster's nodes and clients.
     *
     * @throws IllegalArgumentException naming the file when one cannot be read
     */
    public SslContext clientContext() {
        return clientContext(provider());
    }

    private SslContext clientContext(SslProvider provider) {
        try {
            return SslContextBuilder.forClient().sslProvider(provider).trustManager(ca.toFile())
                    .keyManager(cert.toFile(), key.toFile()).protocols(protocols).build();
        } catch (SSLException | RuntimeException e) {
            throw new IllegalArgumentException("cannot load TLS files (ca " + ca + ", cert " + cert + ", key " + key + "): "
                    + rootMessage(e), e);
        }
    }

    /**
     * The same client context from the JDK's provider, for blocking sockets: always the JDK's, also when OpenSSL
     * is on the classpath and {@link #clientContext()} is OpenSSL's (which has no {@link SSLContext}).
     */
    public SSLContext jdkClientContext() {
        return ((JdkSslContext) clientContext(SslProvider.JDK)).context();
    }

    /** The innermost cause's message: what is actually wrong with a file. */
    public static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
