package io.synod.server.cli;

import io.synod.client.TlsFiles;
import io.synod.server.security.CertificateAuthority;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code synod cert create-ca|create-node|create-client --dir D}: a small certificate authority for one
 * cluster (docs/security.md). Everything is PEM in {@code D}; private keys are created with mode 0600;
 * nothing existing is overwritten.
 */
@Command(name = "cert", mixinStandardHelpOptions = true,
        description = {"Create the certificates a secure cluster needs: one CA per cluster, one certificate per node "
                + "(CN=node-ID, OU=node, O=CLUSTER) and per client user (CN=USER, OU=client).",
                "Files in --dir: ca.crt, ca.key, node-ID.crt/.key, client-USER.crt/.key (keys: PKCS#8 PEM, mode 0600).",
                "A server uses tls.ca=D/ca.crt, tls.cert=D/node-ID.crt, tls.key=D/node-ID.key; replaced files are "
                        + "picked up by new connections without a restart. Keep ca.key off the servers.",
                "Example:",
                "  synod cert create-ca --dir certs --cluster prod",
                "  synod cert create-node 0 --cluster prod --dir certs --host 10.0.0.1",
                "  synod cert create-client alice --dir certs"},
        subcommands = {CertCommand.CreateCa.class, CertCommand.CreateNode.class, CertCommand.CreateClient.class})
public final class CertCommand implements Runnable {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "missing subcommand: create-ca, create-node or create-client (try 'synod cert --help')");
    }

    abstract static class DirOp implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--dir", required = true, paramLabel = "DIR", description = "the CA's directory")
        Path dir;

        abstract String create() throws IOException;

        @Override
        public Integer call() {
            try {
                spec.commandLine().getOut().println(create());
                return 0;
            } catch (IOException | IllegalArgumentException e) {
                spec.commandLine().getErr().println("error: " + e.getMessage());
                return 1;
            }
        }

        CertificateAuthority ca() throws IOException {
            return CertificateAuthority.open(dir);
        }

        static String wrote(TlsFiles f) {
            return "wrote " + f.cert() + " and " + f.key() + " (mode 0600), signed by " + f.ca();
        }
    }

    @Command(name = "create-ca", mixinStandardHelpOptions = true,
            description = "Create a CA (ca.crt, ca.key) for one cluster in --dir; fails if one exists there.")
    static final class CreateCa extends DirOp {
        @Option(names = "--cluster", defaultValue = "synod", paramLabel = "CLUSTER",
                description = "the cluster's name (its cluster.name; default ${DEFAULT-VALUE}); client certificates carry it")
        String cluster;

        @Override
        String create() throws IOException {
            CertificateAuthority ca = CertificateAuthority.create(dir, cluster);
            return "wrote " + dir.resolve(TlsFiles.CA_CERT) + " and " + dir.resolve(CertificateAuthority.CA_KEY)
                    + " (mode 0600) for cluster '" + ca.cluster() + "'";
        }
    }

    @Command(name = "create-node", mixinStandardHelpOptions = true,
            description = "Sign node NODE's certificate (CN=node-NODE, OU=node, O=CLUSTER) with the CA in --dir.")
    static final class CreateNode extends DirOp {
        @Parameters(paramLabel = "NODE", description = "the node id (its node.id), 0..62")
        int node;

        @Option(names = "--cluster", required = true, paramLabel = "CLUSTER", description = "the node's cluster.name")
        String cluster;

        @Option(names = "--host", paramLabel = "HOST", description = "a host name or IP address of the node for the "
                + "certificate's subject alternative names (repeatable; localhost and 127.0.0.1 are always in)")
        List<String> hosts = new ArrayList<>();

        @Override
        String create() throws IOException {
            if (node < 0 || node > 62) {
                throw new IllegalArgumentException("NODE must be 0..62, got " + node);
            }
            return wrote(ca().createNode(node, cluster, hosts));
        }
    }

    @Command(name = "create-client", mixinStandardHelpOptions = true,
            description = "Sign client USER's certificate (CN=USER, OU=client) with the CA in --dir.")
    static final class CreateClient extends DirOp {
        @Parameters(paramLabel = "USER", description = "the user name, 1..64 of [A-Za-z0-9_.-]")
        String user;

        @Override
        String create() throws IOException {
            if (!user.matches("[A-Za-z0-9_.-]{1,64}")) {
                throw new IllegalArgumentException("USER must be 1..64 of [A-Za-z0-9_.-], got '" + user + "'");
            }
            return wrote(ca().createClient(user));
        }
    }
}
