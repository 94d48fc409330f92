package io.synod.bench.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.bench.BenchCli;
import io.synod.bench.CliRun;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KvBenchCommandTest {

    @Test
    void badArgumentsAreOneLineErrors(@TempDir Path dir) {
        CliRun window = CliRun.of("kv", "--quick", "--window", "2", "--threads", "4", "--out", dir.toString());
        assertEquals(BenchCli.EXIT_USAGE, window.exitCode());
        assertTrue(window.err().startsWith("error: --window must be --threads..1024, got 2"), window.err());
        CliRun system = CliRun.of("kv", "--systems", "etcd", "--out", dir.toString());
        assertEquals(BenchCli.EXIT_USAGE, system.exitCode());
        assertTrue(system.err().startsWith("error: unknown system 'etcd'"), system.err());
        CliRun help = CliRun.of("kv", "--help");
        assertEquals(0, help.exitCode());
        assertTrue(help.out().contains("--quick") && help.out().contains("--systems"), help.out());
    }

    @Test
    void loadRunKeepsTheWindowAndCountsFailures() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxSeen = new AtomicInteger();
        java.util.concurrent.ScheduledExecutorService timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try {
            // 2 s measured (not 400 ms): a loaded machine still completes and fails some operations inside it.
            LoadRun.Result r = LoadRun.run(2, 8, 100, 2_000, i -> {
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

    @Test
    void theMarksBoundTheMeasuredPartAndCountOnlyTheAnswersBetweenThem() throws Exception {
        java.util.concurrent.ScheduledExecutorService timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        java.util.concurrent.atomic.AtomicLong answered = new java.util.concurrent.atomic.AtomicLong();
        long[] atMarks = new long[2];
        try {
            LoadRun.Result r = LoadRun.run(2, 8, 500, 1_000, i -> {
                CompletableFuture<Object> f = new CompletableFuture<>();
                timer.schedule(() -> {
                    answered.incrementAndGet();
                    f.complete(i);
                }, 1, java.util.concurrent.TimeUnit.MILLISECONDS);
                return f;
            }, new LoadRun.Marks() {
                @Override
                public void atStart() {
                    atMarks[0] = answered.get();
                }

                @Override
                public void atEnd() {
                    atMarks[1] = answered.get();
                }
            });
            // The warm-up's answers (before the first mark) are not counted; the ones between the marks are.
            assertTrue(atMarks[0] > 0 && atMarks[1] > atMarks[0], java.util.Arrays.toString(atMarks));
            assertTrue(r.acknowledgedInWindow() > 0 && r.acknowledgedInWindow() < r.acknowledged(), r.toString());
            long between = atMarks[1] - atMarks[0];
            // (a thread descheduled between setting a mark and sampling shifts a few answers: a loose bound)
            assertTrue(Math.abs(r.acknowledgedInWindow() - between) <= 16 + between / 5, r + " vs " + between + " between the marks");
        } finally {
            timer.shutdownNow();
        }
    }
}
