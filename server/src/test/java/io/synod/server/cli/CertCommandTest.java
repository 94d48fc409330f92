package io.synod.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.TlsFiles;
import io.synod.server.security.CertIdentity;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code synod cert}: a CA, node and client certificates as PEM, keys 0600, identities in the subject. */
class CertCommandTest {
    @TempDir
    Path dir;

    String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = SynodCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    static X509Certificate read(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    @Test
    void createsACaANodeAndAClient() throws Exception {
        Path d = dir.resolve("certs");
        assertEquals("0", run("cert", "create-ca", "--dir", d.toString(), "--cluster", "prod")[0]);
        assertEquals("0", run("cert", "create-node", "2", "--cluster", "prod", "--dir", d.toString(), "--host", "10.0.0.7")[0]);
        assertEquals("0", run("cert", "create-client", "alice", "--dir", d.toString())[0]);
        TlsFiles node = TlsFiles.node(d, 2);
        TlsFiles client = TlsFiles.client(d, "alice");
        for (Path key : new Path[] {d.resolve("ca.key"), node.key(), client.key()}) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)), key.toString());
            assertTrue(Files.readString(key).startsWith("-----BEGIN PRIVATE KEY-----"));
        }
        assertEquals(null, CertIdentity.of(read(node.cert())).notNode(2, "prod"));
        assertTrue(CertIdentity.of(read(node.cert())).notNode(1, "prod").contains("names node-2"));
        assertEquals(new CertIdentity("client", "alice", "prod"), CertIdentity.of(read(client.cert())));
        read(node.cert()).verify(read(d.resolve("ca.crt")).getPublicKey());
        // Both load as TLS identities (what the servers and the SDK do with them).
        node.clientContext();
        client.clientContext();
    }

    @Test
    void refusesToOverwriteAndNamesTheMissingCa() {
        Path d = dir.resolve("certs");
        String[] noCa = run("cert", "create-client", "bob", "--dir", d.toString());
        assertEquals("1", noCa[0]);
        assertTrue(noCa[2].contains("no CA in"), noCa[2]);
        assertEquals("0", run("cert", "create-ca", "--dir", d.toString())[0]);
        String[] again = run("cert", "create-ca", "--dir", d.toString());
        assertEquals("1", again[0]);
        assertTrue(again[2].startsWith("error:"), again[2]);
    }

    @Test
    void helpExplainsTheFiles() {
        String[] help = run("cert", "--help");
        assertEquals("0", help[0]);
        assertTrue(help[1].contains("tls.ca=D/ca.crt"), help[1]);
        assertTrue(help[1].contains("create-node"), help[1]);
    }

    @Test
    void aServerWithNeitherTlsNorInsecureRefusesToStartInOneLine() {
        String[] r = run("server", "--set", "node.id=0", "--set", "nodes=0@127.0.0.1:1:2", "--set",
                "zookeeper.connect=127.0.0.1:1", "--set", "data.dir=" + dir.resolve("d"));
        assertEquals("2", r[0]);
        String first = r[2].lines().findFirst().orElse(""); // Then picocli's usage hint, as for every config error.
        assertTrue(first.startsWith("error: config: no TLS configured"), r[2]);
        assertTrue(first.contains("tls.ca, tls.cert and tls.key") && first.contains("insecure=true"), first);
    }
}
