package io.synod.bench.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.bench.BenchCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class KvBenchCommandTest {

    private static String[] run(String... args) {
        CommandLine cli = BenchCli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new String[] {Integer.toString(exit), out.toString(), err.toString()};
    }

    @Test
    void badArgumentsAreOneLineErrors(@TempDir Path dir) {
        String[] window = run("kv", "--quick", "--window", "2", "--threads", "4", "--out", dir.toString());
        assertEquals("2", window[0]);
        assertTrue(window[2].startsWith("error: --window must be --threads..1024, got 2"), window[2]);
        String[] system = run("kv", "--systems", "etcd", "--out", dir.toString());
        assertEquals("2", system[0]);
        assertTrue(system[2].startsWith("error: unknown system 'etcd'"), system[2]);
        String[] help = run("kv", "--help");
        assertEquals("0", help[0]);
        assertTrue(help[1].contains("--quick") && help[1].contains("--systems"), help[1]);
    }

    @Test
    void loadRunKeepsTheWindowAndCountsFailures() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxSeen = new AtomicInteger();
        java.util.concurrent.ScheduledExecutorService timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try {
            LoadRun.Result r = LoadRun.run(2, 8, 100, 400, i -> {
                int now = inFlight.incrementAndGet();
                maxSeen.accumulateAndGet(now, Math::max);
                CompletableFuture<Object> f = new CompletableFuture<>();
                timer.schedule(() -> {
                    inFlight.decrementAndGet();
                    if (i % 10 == 0) {
                        f.completeExceptionally(new IllegalStateException("every tenth fails"));
                    } else {
                        f.complete(i);
                    }
                }, 2, java.util.concurrent.TimeUnit.MILLISECONDS);
                return f;
            });
            assertTrue(maxSeen.get() <= 8, "window exceeded: " + maxSeen.get());
            assertTrue(r.completed() > 0 && r.failed() > 0, r.toString());
            assertEquals(r.completed(), r.latency().count());
        } finally {
            timer.shutdownNow();
        }
    }
}
