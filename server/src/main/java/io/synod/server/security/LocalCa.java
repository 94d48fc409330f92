package io.synod.server.security;

import io.synod.client.TlsFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The certificates of a cluster that lives in one directory ({@code synod demo}, {@code synod cluster},
 * {@link io.synod.server.node.LocalCluster}): a CA and its certificates in {@code DIR/certs}, one per
 * node and one for the client user {@value #CLIENT_USER}, which {@code synod kv}, {@code torture} and
 * {@code bench kv} find from the same {@code --dir}. Created on first use, reused afterwards.
 */
public final class LocalCa {
    /** The client certificate's user (its CN) in a local cluster's directory. */
    public static final String CLIENT_USER = "root";

    private LocalCa() {}

    /** Where a local cluster's certificates are. */
    public static Path certsDir(Path clusterDir) {
        return clusterDir.resolve("certs");
    }

    /** The client files of the cluster in {@code clusterDir}. */
    public static TlsFiles clientFiles(Path clusterDir) {
        return TlsFiles.client(certsDir(clusterDir), CLIENT_USER);
    }

    /**
     * Makes sure {@code clusterDir} holds a CA, certificates for nodes {@code 0..nodes-1} of {@code cluster}
     * and the client certificate, creating what is missing; returns the CA.
     */
    public static CertificateAuthority ensure(Path clusterDir, String cluster, int nodes) throws IOException {
        CertificateAuthority ca = CertificateAuthority.openOrCreate(certsDir(clusterDir), cluster);
        for (int i = 0; i < nodes; i++) {
            if (!Files.exists(TlsFiles.node(ca.dir(), i).cert())) {
                ca.createNode(i, cluster, List.of());
            }
        }
        if (!Files.exists(clientFiles(clusterDir).cert())) {
            ca.createClient(CLIENT_USER);
        }
        return ca;
    }

    /** The {@code tls.*} server keys of node {@code nodeId} of the cluster in {@code clusterDir}, as properties lines. */
    public static String serverKeys(Path clusterDir, int nodeId) {
        TlsFiles f = TlsFiles.node(certsDir(clusterDir).toAbsolutePath(), nodeId);
        return "tls.ca=" + f.ca() + "\ntls.cert=" + f.cert() + "\ntls.key=" + f.key() + "\n";
    }
}
