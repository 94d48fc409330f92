package io.synod.server.cli;

import io.synod.client.TlsFiles;
import io.synod.client.BadRequestException;
import io.synod.client.BlockingSynodClient;
import io.synod.client.CasResult;
import io.synod.client.Consistency;
import io.synod.client.GetResult;
import io.synod.client.InvalidKeyException;
import io.synod.client.KeyValue;
import io.synod.client.OutcomeUnknownException;
import io.synod.client.ScanResult;
import io.synod.client.SynodClient;
import io.synod.client.SynodException;
import io.synod.client.SynodTimeoutException;
import io.synod.client.UnavailableException;
import io.synod.client.ValueTooLargeException;
import io.synod.client.WriteResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code synod kv --connect ZK_OR_SERVERS put|get|delete|cas|scan ...}: the key-value store from the
 * command line, through the client SDK. Exit status 0 ok, 1 not found / compare-and-set failed /
 * failure, 2 bad usage (including a bad key or a value too large).
 */
@Command(name = "kv", mixinStandardHelpOptions = true,
        description = {"Read and write keys of a running Synod cluster (through the Java client SDK).", "",
                "Exit status: 0 ok; 1 key not found, compare-and-set failed, or the cluster failed to answer;"
                        + " 2 bad usage (also a bad key or a value too large)."},
        subcommands = {KvCli.Put.class, KvCli.Get.class, KvCli.Delete.class, KvCli.Cas.class,
                KvCli.Scan.class, KvCodingCommand.class},
        footer = {"", "Examples:",
                "  synod kv --dir /tmp/synod-cl put user/42 alice",
                "  synod kv --connect zk://127.0.0.1:2181/prod get user/42",
                "  synod kv --connect 10.0.0.1:7100,10.0.0.2:7100 --consistency stale get user/42",
                "  synod kv --dir /tmp/synod-cl cas --version 17 user/42 bob",
                "  synod kv --dir /tmp/synod-cl scan user/ user0 --limit 10",
                "  synod kv --dir /tmp/synod-cl coding --group 0 2,1     (admin: change a coded group's F and X)",
                "", "More: docs/client.md."})
public final class KvCli implements Runnable {
    @Spec
    CommandLine.Model.CommandSpec spec;

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

    @Option(names = "--consistency", scope = ScopeType.INHERIT, paramLabel = "LEVEL", defaultValue = "linearizable",
            description = {"reads: linearizable (default; through the leader's log), log (through the log),"
                    + " stale (any replica's local state, possibly old)"})
    String consistency;

    @Option(names = "--read-from", scope = ScopeType.INHERIT, defaultValue = "-1", paramLabel = "NODE",
            description = "linearizable reads try this node first: with lease=quorum|quorum-auto|megastore a node holding the "
                    + "key's lease answers from its own state (SDK readFrom; default: the leader)")
    int readFrom;

    @Option(names = "--timeout-ms", scope = ScopeType.INHERIT, defaultValue = "10000", paramLabel = "MS",
            description = "per call, retries included (default ${DEFAULT-VALUE})")
    long timeoutMillis;

    @Option(names = "--connect-timeout-ms", scope = ScopeType.INHERIT, defaultValue = "5000", paramLabel = "MS",
            description = "to reach the cluster (default ${DEFAULT-VALUE})")
    long connectTimeoutMillis;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "missing operation: put, get, delete, cas, scan or coding (try 'synod kv --help')");
    }

    /** What every operation shares: parse the common options, connect, map SDK failures to exit codes. */
    abstract static class Op implements Callable<Integer> {
        @ParentCommand
        KvCli kv;

        @Spec
        CommandLine.Model.CommandSpec spec;

        abstract int run(BlockingSynodClient client, Consistency consistency, PrintWriter out, PrintWriter err);

        @Override
        public Integer call() {
            CommandLine cl = spec.commandLine();
            if ((kv.connect == null) == (kv.dir == null)) {
                throw new CommandLine.ParameterException(cl, "give exactly one of --connect ZK_OR_SERVERS or --dir DIR");
            }
            if (kv.timeoutMillis <= 0 || kv.connectTimeoutMillis <= 0) {
                throw new CommandLine.ParameterException(cl, "timeouts must be > 0 ms");
            }
            Consistency consistency;
            try {
                consistency = Consistency.valueOf(kv.consistency.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(cl, "--consistency must be linearizable, log or stale, got '"
                        + kv.consistency + "'");
            }
            SynodClient.Builder builder = SynodClient.builder().timeout(Duration.ofMillis(kv.timeoutMillis))
                    .connectTimeout(Duration.ofMillis(kv.connectTimeoutMillis)).consistency(consistency);
            if (kv.readFrom != -1) {
                try {
                    builder.readFrom(kv.readFrom);
                } catch (IllegalArgumentException e) {
                    throw new CommandLine.ParameterException(cl, "--read-from: " + e.getMessage());
                }
            }
            try {
                if (kv.dir != null) {
                    ClusterFile file = ClusterFile.read(kv.dir);
                    builder.zookeeper("127.0.0.1:" + file.zookeeperPort()).cluster(file.cluster())
                            .tls(ClusterCommand.clientTls(kv.dir, file));
                } else {
                    builder.connect(kv.connect);
                    if (kv.certs != null) {
                        builder.tls(TlsFiles.client(kv.certs, kv.user));
                    }
                }
            } catch (IOException e) {
                cl.getErr().println("error: " + e.getMessage());
                return 1;
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(cl, "--connect: " + e.getMessage());
            }
            PrintWriter out = cl.getOut();
            PrintWriter err = cl.getErr();
            try (SynodClient client = builder.build()) {
                return run(client.blocking(), consistency, out, err);
            } catch (InvalidKeyException | ValueTooLargeException e) {
                err.println("error: " + (e instanceof InvalidKeyException ? "bad key: " : "value too large: ")
                        + e.getMessage());
                err.println("Try 'synod kv --help' for more information.");
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
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Command(name = "put", mixinStandardHelpOptions = true, description = "Set KEY to VALUE; prints the slot (the key's new version).")
    static final class Put extends Op {
        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Parameters(index = "1", paramLabel = "VALUE", description = "UTF-8 text; '-' reads the value from standard input")
        String value;

        @Override
        int run(BlockingSynodClient client, Consistency consistency, PrintWriter out, PrintWriter err) {
            byte[] bytes;
            try {
                bytes = value.equals("-") ? System.in.readAllBytes() : utf8(value);
            } catch (IOException e) {
                err.println("error: cannot read the value from standard input: " + e.getMessage());
                return 1;
            }
            WriteResult r = client.put(key, bytes);
            out.println("OK version " + r.slot());
            return 0;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true,
            description = "Print KEY's value (exit 1 if absent); --meta adds its version and the slot the read reflects.")
    static final class Get extends Op {
        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Option(names = "--meta", description = "also print 'version V, slot S' on a second line")
        boolean meta;

        @Override
        int run(BlockingSynodClient client, Consistency consistency, PrintWriter out, PrintWriter err) {
            GetResult r = client.get(key, consistency);
            if (!r.exists()) {
                err.println("not found: " + key + " (as of slot " + r.slot() + ")");
                return 1;
            }
            out.println(r.valueUtf8());
            if (meta) {
                out.println("version " + r.version() + ", slot " + r.slot() + " (" + consistency.name().toLowerCase(
                        Locale.ROOT) + ")");
            }
            return 0;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Remove KEY (absent keys too: deleting is idempotent).")
    static final class Delete extends Op {
        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Override
        int run(BlockingSynodClient client, Consistency consistency, PrintWriter out, PrintWriter err) {
            out.println("OK slot " + client.delete(key).slot());
            return 0;
        }
    }

    // No mixinStandardHelpOptions here: its -V/--version would collide with cas's own --version, and
    // picocli then dropped --help altogether
    @Command(name = "cas",
            description = {"Compare-and-set: 'cas KEY EXPECTED NEW' sets NEW if the value is EXPECTED;",
                    "'cas --absent KEY NEW' if the key is absent; 'cas --version V KEY NEW' if the key's version",
                    "(the slot of its last write, as put and get --meta print it) is V. Exit 1 if it did not swap."})
    static final class Cas extends Op {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
        boolean help;

        @Option(names = "--version", paramLabel = "V", description = "expect this version instead of a value (0: absent)")
        Long version;

        @Option(names = "--absent", description = "expect the key to be absent")
        boolean absent;

        @Parameters(paramLabel = "ARGS", arity = "2..3", description = "KEY [EXPECTED] NEW")
        List<String> args;

        @Override
        int run(BlockingSynodClient client, Consistency consistency, PrintWriter out, PrintWriter err) {
            boolean byValue = version == null && !absent;
            if ((byValue && args.size() != 3) || (!byValue && args.size() != 2) || (version != null && absent)) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "use 'cas KEY EXPECTED NEW', 'cas --absent KEY NEW' or 'cas --version V KEY NEW'");
            }
            String key = args.get(0);
            CasResult r;
            if (version != null) {
                r = client.compareAndSetVersion(key, version, utf8(args.get(1)));
            } else if (absent) {
                r = client.compareAndSet(key, null, utf8(args.get(1)));
            } else {
                r = client.compareAndSet(key, utf8(args.get(1)), utf8(args.get(2)));
            }
            if (!r.swapped()) {
                err.println("cas failed: " + key + " did not match the expectation (slot " + r.slot() + ")");
                return 1;
            }
            out.println("OK version " + r.slot());
            return 0;
        }
    }

    @Command(name = "scan", mixinStandardHelpOptions = true,
            description = {"Print the value keys in [START, END) in key order, one 'KEY<TAB>VALUE' line each",
                    "(START empty or omitted: from the first key; END omitted: to the last)."})
    static final class Scan extends Op {
        @Parameters(index = "0", arity = "0..1", paramLabel = "START", defaultValue = "")
        String start;

        @Parameters(index = "1", arity = "0..1", paramLabel = "END", defaultValue = "")
        String end;

        @Option(names = "--limit", defaultValue = "100", description = "most keys to print (default ${DEFAULT-VALUE})")
        int limit;

        @Override
        int run(BlockingSynodClient client, Consistency consistency, PrintWriter out, PrintWriter err) {
            if (limit < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--limit must be >= 1, got " + limit);
            }
            ScanResult r = client.scan(start, end, limit, consistency);
            for (KeyValue kv : r.entries()) {
                out.println(kv.key() + "\t" + kv.valueUtf8());
            }
            err.println(r.entries().size() + (r.entries().size() == 1 ? " key" : " keys")
                    + (r.more() ? " (more in the range: raise --limit or scan from after the last key)" : ""));
            return 0;
        }
    }
}
