package io.synod.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        assertTrue(missing.err().contains("Missing command"), missing.err());
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
}
