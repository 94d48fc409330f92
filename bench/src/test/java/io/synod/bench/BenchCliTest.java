package io.synod.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchCliTest {

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

    @Test
    void helpExplainsTheLocksCommand() {
        Run top = run("--help");
        assertEquals(0, top.exitCode());
        assertTrue(top.out().contains("locks"), top.out());
        Run locks = run("locks", "--help");
        assertEquals(0, locks.exitCode());
        for (String expected : new String[] {"--quick", "--full", "--out", "--ensemble-size", "--experiments", "--seed",
                "Fig. 10", "high-contention-rtt"}) {
            assertTrue(locks.out().contains(expected), "help lacks " + expected);
        }
    }

    @Test
    void badArgumentsFailWithAMessageAndExitCodeTwo() {
        Run size = run("locks", "--ensemble-size", "4");
        assertEquals(BenchCli.EXIT_USAGE, size.exitCode());
        assertTrue(size.err().contains("--ensemble-size must be 1, 3 or 5"), size.err());

        Run experiment = run("locks", "--experiments", "baseline,nonsense");
        assertEquals(BenchCli.EXIT_USAGE, experiment.exitCode());
        assertTrue(experiment.err().contains("unknown experiment 'nonsense'"), experiment.err());

        Run both = run("locks", "--quick", "--full");
        assertEquals(BenchCli.EXIT_USAGE, both.exitCode());

        Run unknown = run("locks", "--frobnicate");
        assertEquals(BenchCli.EXIT_USAGE, unknown.exitCode());
        assertTrue(unknown.err().contains("--frobnicate"), unknown.err());

        Run notANumber = run("locks", "--seed", "abc");
        assertEquals(BenchCli.EXIT_USAGE, notANumber.exitCode());

        Run missing = run();
        assertEquals(BenchCli.EXIT_USAGE, missing.exitCode());
        assertTrue(missing.err().contains("missing command"), missing.err());

        for (Run bad : new Run[] {size, experiment, both, unknown, notANumber, missing}) {
            assertShortUsageError(bad);
        }
    }

    /** The main synod CLI's style: one error line, the synopsis, where the help is; never the whole help or a trace. */
    private static void assertShortUsageError(Run run) {
        String[] lines = run.err().split("\\R");
        assertTrue(lines[0].startsWith("error: "), run.err());
        assertEquals(1, run.err().lines().filter(line -> line.startsWith("error: ")).count(), run.err());
        assertTrue(run.err().contains("usage: synod bench"), run.err());
        assertTrue(run.err().contains("Try 'synod bench") && run.err().contains("--help' for more information."), run.err());
        assertFalse(run.err().contains("\tat "), "no stack trace: " + run.err());
        assertTrue(lines.length <= 12, "short, not the whole help: " + run.err());
    }

    @Test
    void anOutputDirectoryThatCannotBeMadeIsABadArgumentNotAStackTrace() {
        Run locks = run("locks", "--quick", "--out", "/proc/nope/d");
        assertEquals(BenchCli.EXIT_USAGE, locks.exitCode(), locks.err());
        assertTrue(locks.err().contains("--out /proc/nope/d cannot be created or written"), locks.err());
        assertShortUsageError(locks);
        assertTrue(locks.out().isEmpty() || !locks.out().contains("ensemble"), "fails before starting anything: " + locks.out());

        Run locksAt = run("locks-at", "--connect", "127.0.0.1:1", "--out", "/proc/nope/d");
        assertEquals(BenchCli.EXIT_USAGE, locksAt.exitCode(), locksAt.err());
        assertShortUsageError(locksAt);
    }

    @Test
    void helpTextsAreNeitherCutNorWrappedTwice() {
        Run top = run("--help");
        assertTrue(top.out().contains("The seed paper's lock experiments on a real ZooKeeper ensemble with injected latency."),
                "one-line summaries are whole: " + top.out());
        assertTrue(top.out().contains("The lock experiment at one network condition, against an ensemble already running."),
                top.out());
        assertFalse(top.out().lines().anyMatch(line -> line.startsWith("              ")), "a summary wrapped: " + top.out());
        for (String command : new String[] {"locks", "locks-at", "coded"}) {
            Run help = run(command, "--help");
            for (String line : help.out().split("\\R")) {
                assertTrue(line.length() <= BenchCli.HELP_WIDTH, "line longer than the help width: " + line);
            }
            // A pre-wrapped description line wrapped again by picocli would leave a one- or two-word line.
            assertFalse(help.out().lines().anyMatch(line -> line.trim().matches("[A-Za-z,.()]+")),
                    "a description line was wrapped twice: " + help.out());
        }
    }

    @Test
    void codecCommandExplainsItselfAndRefusesAnUnwritableOutputBeforeBenchmarking() {
        Run help = run("codec", "--help");
        assertEquals(0, help.exitCode());
        for (String expected : new String[] {"--quick", "--out", "Backblaze", "(10,4)"}) {
            assertTrue(help.out().contains(expected), "help lacks " + expected);
        }
        Run badOut = run("codec", "--quick", "--out", "/nonexistent-dir-for-synod-test/x.csv");
        assertEquals(BenchCli.EXIT_USAGE, badOut.exitCode());
        assertTrue(badOut.err().contains("does not exist or is not writable"), badOut.err());
    }

    @Test
    void codedCommandExplainsItselfAndRefusesBadArgumentsBeforeStartingServers() {
        Run help = run("coded", "--help");
        assertEquals(0, help.exitCode());
        for (String expected : new String[] {"--quick", "--out", "--sizes", "--bandwidth-mbit", "--rtt-ms", "5,1,3",
                "Fig. 5/6"}) {
            assertTrue(help.out().contains(expected), "help lacks " + expected);
        }
        String[][] bad = {
            {"--sizes", "0", "--sizes: each size must be 1..1000 KiB, got 0"},
            {"--bandwidth-mbit", "0", "--bandwidth-mbit must be 1..100000"},
            {"--rtt-ms", "10", "--jitter-ms", "20", "--rtt-ms must be 0..2000 and --jitter-ms 0..rtt"},
            {"--clients", "0", "--clients must be 1..64"},
            {"--seconds", "0", "--seconds must be 1..3600"},
        };
        for (String[] b : bad) {
            String[] args = new String[b.length];
            args[0] = "coded";
            System.arraycopy(b, 0, args, 1, b.length - 1);
            Run r = run(args);
            assertEquals(BenchCli.EXIT_USAGE, r.exitCode(), r.err());
            assertTrue(r.err().contains(b[b.length - 1]), r.err());
            assertShortUsageError(r);
            assertFalse(r.out().contains("servers up"), "fails before starting servers: " + r.out());
        }
        assertTrue(help.out().contains("--sim"), "help lacks --sim");
        Run tooManySimClients = run("coded", "--sim", "--clients", "2000");
        assertEquals(BenchCli.EXIT_USAGE, tooManySimClients.exitCode(), tooManySimClients.err());
        assertTrue(tooManySimClients.err().contains("--clients must be 1..1024, got 2000"), tooManySimClients.err());
    }
}
