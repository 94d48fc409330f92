package io.synod.server.cli;

import io.synod.client.SynodClient;
import io.synod.client.TlsFiles;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * Which cluster a client command talks to, and as whom: {@code --connect} (with {@code --certs} and {@code --user})
 * or {@code --dir} of a local cluster. A picocli mixin shared by {@code synod kv} and {@code synod auth}; its options
 * are inherited by their subcommands.
 */
final class ClientTarget {
    @Option(names = "--connect", scope = ScopeType.INHERIT, paramLabel = "ZK_OR_SERVERS",
            description = {"zk://HOST:PORT[,HOST:PORT...][/CLUSTER] (ZooKeeper: the named cluster, or the only one"
                    + " there), or HOST:PORT[,HOST:PORT...] (Synod servers' client addresses)"})
    String connect;

    @Option(names = "--dir", scope = ScopeType.INHERIT, paramLabel = "DIR",
            description = "a cluster started by 'synod cluster start --dir DIR' (reads DIR/cluster.json)")
    Path dir;

    @Option(names = "--certs", scope = ScopeType.INHERIT, paramLabel = "CERTS",
            description = "with --connect: a 'synod cert' directory with ca.crt and the client certificate of --user "
                    + "(TLS; without it the client speaks plain TCP, which only insecure servers accept). "
                    + "--dir finds the local cluster's own")
    Path certs;

    @Option(names = "--user", scope = ScopeType.INHERIT, paramLabel = "USER", defaultValue = "root",
            description = "with --certs: whose client certificate (client-USER.crt; default ${DEFAULT-VALUE})")
    String user;

    /** Refuses, as bad usage of {@code cl}, anything but exactly one of {@code --connect} and {@code --dir}. */
    void check(CommandLine cl) {
        if ((connect == null) == (dir == null)) {
            throw new CommandLine.ParameterException(cl, "give exactly one of --connect ZK_OR_SERVERS or --dir DIR");
        }
    }

    /**
     * Points {@code builder} at the local cluster of {@code --dir} (its ZooKeeper, cluster name and client
     * certificate) or at {@code --connect} (with {@code --certs}: TLS as {@code --user}).
     */
    void applyTo(SynodClient.Builder builder) throws IOException {
        if (dir != null) {
            ClusterFile file = ClusterFile.read(dir);
            builder.zookeeper("127.0.0.1:" + file.zookeeperPort()).cluster(file.cluster())
                    .tls(ClusterCommand.clientTls(dir, file));
        } else {
            builder.connect(connect);
            if (certs != null) {
                builder.tls(TlsFiles.client(certs, user));
            }
        }
    }
}
