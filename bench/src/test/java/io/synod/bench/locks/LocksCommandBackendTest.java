package io.synod.bench.locks;

import io.synod.bench.BenchCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code synod bench locks --backend}: option validation (exit 2 with the problem named, before any cluster starts)
 * and the combined CSV. Nothing here starts a server.
 */
class LocksCommandBackendTest {

    @TempDir
    Path dir;

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
    void backendNamesParse() {
        assertEquals(EnumSet.of(Backend.ZK), Backend.parse("zk"));
        assertEquals(EnumSet.of(Backend.SYNOD), Backend.parse(" Synod "));
        assertEquals(List.of(Backend.ZK, Backend.SYNOD), List.copyOf(Backend.parse("both")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Backend.parse("etcd"));
        assertTrue(e.getMessage().contains("--backend must be zk, synod or both, was 'etcd'"), e.getMessage());
    }

    @Test
    void anUnknownBackendIsABadArgument() {
        Run r = run("locks", "--backend", "etcd", "--out", dir.resolve("o").toString());
        assertEquals(2, r.exitCode(), r.err());
        assertTrue(r.err().contains("--backend must be zk, synod or both, was 'etcd'"), r.err());
        assertFalse(Files.exists(dir.resolve("o")), "nothing started, nothing written");
    }

    @Test
    void otherBadArgumentsAreNamedWhateverTheBackend() {
        Run size = run("locks", "--backend", "both", "--ensemble-size", "4", "--out", dir.resolve("o").toString());
        assertEquals(2, size.exitCode(), size.err());
        assertTrue(size.err().contains("--ensemble-size must be 1, 3 or 5, was 4"), size.err());
        Run clients = run("locks", "--backend", "synod", "--clients", "0", "--out", dir.resolve("o").toString());
        assertEquals(2, clients.exitCode(), clients.err());
        assertTrue(clients.err().contains("--clients must be in [1, 64], was 0"), clients.err());
        Run experiment = run("locks", "--backend", "synod", "--experiments", "lock-grid,nope");
        assertEquals(2, experiment.exitCode(), experiment.err());
        assertTrue(experiment.err().contains("unknown experiment 'nope'"), experiment.err());
    }

    @Test
    void helpNamesTheBackends() {
        Run r = run("locks", "--help");
        assertEquals(0, r.exitCode());
        assertTrue(r.out().contains("--backend=zk|synod|both"), r.out());
    }

    @Test
    void combinedCsvHasOneHeaderAndEveryRow() throws Exception {
        Path a = dir.resolve("a.csv");
        Path b = dir.resolve("b.csv");
        Files.write(a, List.of("backend,point", "zk,p1", "zk,p2"));
        Files.write(b, List.of("backend,point", "synod,p1"));
        Path out = dir.resolve("all.csv");
        LocksCommand.concatenateCsv(List.of(a, b), out);
        assertEquals(List.of("backend,point", "zk,p1", "zk,p2", "synod,p1"), Files.readAllLines(out));
        Files.write(b, List.of("other,header", "x,y"));
        assertThrows(java.io.IOException.class, () -> LocksCommand.concatenateCsv(List.of(a, b), out));
    }
}
