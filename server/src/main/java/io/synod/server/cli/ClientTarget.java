package io.synod.server.cli;

import io.synod.client.BadRequestException;
import io.synod.client.InvalidKeyException;
import io.synod.client.OutcomeUnknownException;
import io.synod.client.SynodClient;
import io.synod.client.SynodException;
import io.synod.client.SynodTimeoutException;
import io.synod.client.TlsFiles;
import io.synod.client.UnavailableException;
import io.synod.client.ValueTooLargeException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.ToIntFunction;
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
     * An administrator's call: checks the target and {@code --timeout-ms} ({@code timeoutMillis}) as bad usage, then
     * {@link #run} with a client whose calls and connection wait at most that long.
     */
    int runWithTimeout(CommandLine cl, long timeoutMillis, String command, ToIntFunction<SynodClient> body) {
        check(cl);
        if (timeoutMillis <= 0) {
            throw new CommandLine.ParameterException(cl, "--timeout-ms must be > 0");
        }
        SynodClient.Builder builder = SynodClient.builder().timeout(Duration.ofMillis(timeoutMillis))
                .connectTimeout(Duration.ofMillis(timeoutMillis));
        return run(cl, builder, command, body);
    }

    /**
     * Connects as {@link #applyTo} says and runs {@code body}; the SDK's failures become one {@code error:} line on
     * {@code cl}'s error stream and an exit status: 2 for a bad key or a value too large (bad usage, with a pointer to
     * {@code command --help}), 1 for everything else (refused, permission denied, unreachable, outcome unknown, timed
     * out).
     */
    int run(CommandLine cl, SynodClient.Builder builder, String command, ToIntFunction<SynodClient> body) {
        PrintWriter out = cl.getOut();
        PrintWriter err = cl.getErr();
        try {
            applyTo(builder);
        } catch (IOException e) {
            err.println("error: " + e.getMessage());
            return 1;
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, "--connect: " + e.getMessage());
        }
        try (SynodClient client = builder.build()) {
            return body.applyAsInt(client);
        } catch (InvalidKeyException | ValueTooLargeException e) {
            err.println("error: " + (e instanceof InvalidKeyException ? "bad key: " : "value too large: ") + e.getMessage());
            err.println("Try '" + command + " --help' for more information.");
            return 2;
        } catch (BadRequestException e) {
            err.println("error: refused: " + e.getMessage());
            return 1;
        } catch (UnavailableException e) {
            err.println("error: cluster unreachable: " + e.getMessage());
            return 1;
        } catch (OutcomeUnknownException e) {
            err.println("error: outcome unknown (the write may or may not have been applied): " + e.getMessage());
            return 1;
        } catch (SynodTimeoutException e) {
            err.println("error: timed out: " + e.getMessage());
            return 1;
        } catch (SynodException | IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            return 1;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /**
     * Points {@code builder} at the local cluster of {@code --dir} (its ZooKeeper, cluster name and client
     * certificate) or at {@code --connect} (with {@code --certs}: TLS as {@code --user}).
     */
    private void applyTo(SynodClient.Builder builder) throws IOException {
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
