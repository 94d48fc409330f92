package io.synod.bench.locks;

import io.synod.bench.BenchCli;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import java.io.File;
import java.io.IOException;
import java.util.Comparator;
import java.util.stream.Stream;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code synod bench locks-at} against a ZooKeeper server on 127.0.0.1 (Curator's TestingServer):
 * outputs are written, every request completes with mutual exclusion intact, the run's nodes are
 * deleted, bad arguments exit with 2 and an unreachable ensemble with 1. No timing is asserted.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LocksAtCommandTest {

    private static final String HOST = "127.0.0.1";

    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cli = BenchCli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /**
     * ZooKeeper's embedded server writes a zookeeper.configuration*.properties file next to its data directory; a
     * data directory of our own keeps those files out of the system temp directory, and this tree is deleted after.
     */
    private static Path serverFiles;
    private static int serverCount;

    @BeforeAll
    static void createServerFiles() throws IOException {
        serverFiles = Files.createTempDirectory("synod-locks-at-zk");
    }

    @AfterAll
    static void deleteServerFiles() throws IOException {
        try (Stream<Path> paths = Files.walk(serverFiles)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    private static TestingServer startServer() throws Exception {
        File dataDir = serverFiles.resolve("server-" + (++serverCount)).resolve("data").toFile();
        if (!dataDir.mkdirs()) {
            throw new IOException("cannot create " + dataDir);
        }
        InstanceSpec spec = new InstanceSpec(dataDir, -1, -1, -1, true, -1, -1, -1,
                Map.of("clientPortAddress", HOST), HOST);
        return new TestingServer(spec, true);
    }

    @Test
    void measuresEveryLockKindWritesOutputsAndCleansUp(@TempDir Path outDir) throws Exception {
        try (TestingServer server = startServer()) {
            String label = "loopback, no delay";
            Run run = run("locks-at", "--connect", server.getConnectString(), "--out", outDir.toString(),
                    "--clients", "3", "--requests", "8", "--interarrival-ms", "20", "--service-ms", "2",
                    "--baseline-ops", "10", "--seed", "7", "--label", label, "--connect-timeout-s", "30");
            assertEquals(0, run.exitCode(), run.out() + run.err());
            String out = run.out();
            for (String expected : new String[] {"sync queue", "async queue", "sync TAS", "async TAS",
                    "Mutual exclusion held", "create", "standalone", label}) {
                assertTrue(out.contains(expected), "output lacks '" + expected + "':\n" + out);
            }
            for (String file : List.of("locks-at.csv", "lock-requests.csv", "ops-baseline.csv", "locks-at.png",
                    "summary.md")) {
                assertTrue(Files.size(outDir.resolve(file)) > 0, file + " missing or empty");
            }
            byte[] png = Files.readAllBytes(outDir.resolve("locks-at.png"));
            assertEquals((byte) 0x89, png[0], "locks-at.png is not a PNG");
            assertEquals('P', png[1], "locks-at.png is not a PNG");

            List<String> rows = Files.readAllLines(outDir.resolve("locks-at.csv"));
            assertEquals(1 + LockPrimitive.values().length, rows.size(), "header + one row per lock: " + rows);
            List<String> header = List.of(rows.get(0).split(","));
            for (String row : rows.subList(1, rows.size())) {
                // The label contains a comma, so it is quoted: split on the quoted prefix first.
                assertTrue(row.startsWith("\"" + label + "\","), row);
                String[] cells = row.substring(label.length() + 3).split(",");
                int shift = 1; // the label column was cut off
                assertEquals("8", cells[header.indexOf("requests") - shift], row);
                assertEquals("8", cells[header.indexOf("completed") - shift], row);
                assertEquals("0", cells[header.indexOf("exclusion_violations") - shift], row);
                assertEquals("0", cells[header.indexOf("token_order_violations") - shift], row);
            }
            assertEquals(1 + LockPrimitive.values().length * 8, Files.readAllLines(outDir.resolve("lock-requests.csv")).size());

            // Everything the run created is gone again.
            try (CuratorFramework probe = CuratorFrameworkFactory.newClient(server.getConnectString(),
                    new RetryNTimes(3, 200))) {
                probe.start();
                assertTrue(probe.blockUntilConnected(30, TimeUnit.SECONDS));
                assertNull(probe.checkExists().forPath(LocksAtRun.PARENT), "locks-at left nodes behind");
            }
        }
    }

    @Test
    void aSubsetOfLockKindsRunsOnlyThose(@TempDir Path outDir) throws Exception {
        try (TestingServer server = startServer()) {
            Run run = run("locks-at", "--connect", server.getConnectString(), "--out", outDir.toString(),
                    "--clients", "2", "--requests", "4", "--interarrival-ms", "10", "--locks", "async-tas,sync-queue",
                    "--baseline-ops", "0", "--contact", "any");
            assertEquals(0, run.exitCode(), run.out() + run.err());
            List<String> rows = Files.readAllLines(outDir.resolve("locks-at.csv"));
            assertEquals(3, rows.size(), rows.toString());
            assertTrue(rows.get(1).contains("sync queue") && rows.get(2).contains("async TAS"), rows.toString());
            assertTrue(run.out().contains("baseline skipped"), run.out());
        }
    }

    @Test
    void badArgumentsExitWithTwoAndSayWhy(@TempDir Path outDir) {
        String[][] cases = {
                {"--out", outDir.toString()},                                             // --connect missing
                {"--connect", "localhost"},                                               // no port
                {"--connect", "127.0.0.1:99999"},                                         // port out of range
                {"--connect", "127.0.0.1:2181,"},                                         // empty entry
                {"--connect", "127.0.0.1:2181", "--clients", "0"},
                {"--connect", "127.0.0.1:2181", "--requests", "0"},
                {"--connect", "127.0.0.1:2181", "--interarrival-ms", "-5"},
                {"--connect", "127.0.0.1:2181", "--service-ms", "0"},
                {"--connect", "127.0.0.1:2181", "--locks", "sync-queue,mcs"},
                {"--connect", "127.0.0.1:2181", "--session-timeout-ms", "10"},
                {"--connect", "127.0.0.1:2181", "--contact", "leader"},
                {"--connect", "127.0.0.1:2181", "--seed", "abc"},
                {"--connect", "127.0.0.1:2181", "--out", "/proc/synod-not-writable"},
        };
        String[] expectedMessages = {"--connect", "HOST:PORT", "port out of range", "HOST:PORT", "--clients",
                "--requests", "--interarrival-ms", "--service-ms", "unknown lock 'mcs'", "--session-timeout-ms",
                "--contact", "abc", "cannot be created"};
        for (int i = 0; i < cases.length; i++) {
            String[] args = new String[cases[i].length + 1];
            args[0] = "locks-at";
            System.arraycopy(cases[i], 0, args, 1, cases[i].length);
            Run run = run(args);
            assertEquals(BenchCli.EXIT_USAGE, run.exitCode(), String.join(" ", args) + "\n" + run.err());
            assertTrue(run.err().contains(expectedMessages[i]),
                    String.join(" ", args) + ": message lacks '" + expectedMessages[i] + "':\n" + run.err());
        }
    }

    /**
     * A "lock" that grants at once to everyone: the run must report the overlapping grants, say that
     * mutual exclusion was violated, still write its files, and exit with 1.
     */
    @Test
    void aLockThatGrantsEveryoneAtOnceIsReportedAsViolatingExclusion(@TempDir Path outDir) throws Exception {
        java.util.concurrent.atomic.AtomicLong tokens = new java.util.concurrent.atomic.AtomicLong();
        LockUnderTest.Factory noLock = (primitive, client, lockPath) -> new LockUnderTest() {
            @Override
            public LockPrimitive primitive() {
                return primitive;
            }

            @Override
            public java.util.Optional<Long> acquireBlocking(java.time.Duration timeout) {
                return java.util.Optional.of(tokens.incrementAndGet());
            }

            @Override
            public void releaseBlocking() {
            }

            @Override
            public java.util.concurrent.CompletionStage<java.util.Optional<Long>> acquireAsync(java.time.Duration timeout) {
                return java.util.concurrent.CompletableFuture.completedFuture(java.util.Optional.of(tokens.incrementAndGet()));
            }

            @Override
            public java.util.concurrent.CompletionStage<Void> releaseAsync() {
                return java.util.concurrent.CompletableFuture.completedFuture(null);
            }

            @Override
            public void close() {
            }
        };
        try (TestingServer server = startServer()) {
            LocksAtCommand command = new LocksAtCommand();
            command.lockFactory = noLock;
            CommandLine cli = new CommandLine(command);
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            cli.setOut(new PrintWriter(out, true));
            cli.setErr(new PrintWriter(err, true));
            // Requests arrive every ~1 ms and hold for ~100 ms on 3 clients: holds overlap.
            int exit = cli.execute("--connect", server.getConnectString(), "--out", outDir.toString(), "--clients", "3",
                    "--requests", "8", "--interarrival-ms", "1", "--service-ms", "100", "--locks", "sync-tas,async-tas",
                    "--baseline-ops", "0");
            assertEquals(1, exit, out + "\n" + err);
            assertTrue(out.toString().contains("MUTUAL EXCLUSION VIOLATED"), out.toString());
            assertTrue(err.toString().contains("MUTUAL EXCLUSION VIOLATED"), err.toString());
            List<String> rows = Files.readAllLines(outDir.resolve("locks-at.csv"));
            int overlaps = List.of(rows.get(0).split(",")).indexOf("exclusion_violations");
            for (String row : rows.subList(1, rows.size())) {
                assertTrue(Integer.parseInt(row.split(",")[overlaps]) > 0, row);
            }
        }
    }

    @Test
    void anUnreachableEnsembleFailsWithExitCodeOneWithinTheConnectTimeout(@TempDir Path outDir) throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
            closedPort = socket.getLocalPort();
        }
        Run run = run("locks-at", "--connect", HOST + ":" + closedPort, "--out", outDir.toString(),
                "--connect-timeout-s", "2");
        assertEquals(1, run.exitCode(), run.out() + run.err());
        assertTrue(run.err().contains("could not connect to ZooKeeper at " + HOST + ":" + closedPort), run.err());
    }

    @Test
    void helpListsTheOptions() {
        Run help = run("locks-at", "--help");
        assertEquals(0, help.exitCode());
        for (String expected : new String[] {"--connect", "--out", "--clients", "--requests", "--interarrival-ms",
                "--service-ms", "--locks", "--seed", "--label", "--session-timeout-ms", "--contact"}) {
            assertTrue(help.out().contains(expected), "help lacks " + expected);
        }
        assertTrue(run("--help").out().contains("locks-at"));
    }
}
