package io.synod.bench.kv;

import io.synod.bench.report.LatencySummary;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * A closed-loop load generator: {@code threads} issuing threads keep at most {@code window}
 * operations in flight in total (a semaphore), for a warm-up and then a measured interval. Latency
 * is recorded per operation (bounded: at most {@link #MAX_SAMPLES} samples are kept).
 */
final class LoadRun {
    static final int MAX_SAMPLES = 2_000_000;

    /**
     * What one measured interval produced; {@code acknowledged} counts every successful operation of the
     * run, warm-up included (what the servers' cost over the whole run is divided by).
     */
    record Result(long completed, long failed, double seconds, LatencySummary latency, long acknowledged) {
        double opsPerSecond() {
            return completed / seconds;
        }
    }

    private LoadRun() {
    }

    /**
     * Runs {@code op} (given a running operation number) for {@code warmupMillis} unmeasured, then
     * {@code measureMillis} measured; waits for every issued operation to finish (at most 60 s).
     */
    static Result run(int threads, int window, long warmupMillis, long measureMillis, IntFunction<CompletableFuture<?>> op)
            throws InterruptedException {
        Semaphore inFlight = new Semaphore(window);
        AtomicLong sequence = new AtomicLong();
        AtomicLong completed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong acknowledged = new AtomicLong();
        long[] samples = new long[MAX_SAMPLES];
        AtomicLong sampleCount = new AtomicLong();
        long start = System.nanoTime();
        long measureFrom = start + warmupMillis * 1_000_000L;
        long measureTo = measureFrom + measureMillis * 1_000_000L;
        Thread[] issuers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            issuers[t] = new Thread(() -> {
                try {
                    while (System.nanoTime() < measureTo) {
                        if (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                            continue;
                        }
                        long issued = System.nanoTime();
                        CompletableFuture<?> f;
                        try {
                            f = op.apply((int) sequence.getAndIncrement());
                        } catch (RuntimeException e) {
                            f = CompletableFuture.failedFuture(e);
                        }
                        f.whenComplete((v, error) -> {
                            long done = System.nanoTime();
                            if (error == null) {
                                acknowledged.incrementAndGet();
                            }
                            inFlight.release();
                            if (issued >= measureFrom && done <= measureTo) {
                                if (error != null) {
                                    failed.incrementAndGet();
                                } else {
                                    completed.incrementAndGet();
                                    long i = sampleCount.getAndIncrement();
                                    if (i < MAX_SAMPLES) {
                                        samples[(int) i] = done - issued;
                                    }
                                }
                            }
                        });
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "load-" + t);
            issuers[t].setDaemon(true);
            issuers[t].start();
        }
        for (Thread t : issuers) {
            t.join();
        }
        // Drain: every issued operation returns its permit.
        if (!inFlight.tryAcquire(window, 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("operations still in flight 60 s after the run ended");
        }
        int n = (int) Math.min(sampleCount.get(), MAX_SAMPLES);
        return new Result(completed.get(), failed.get(), measureMillis / 1000.0,
                LatencySummary.ofNanos(Arrays.copyOf(samples, n)), acknowledged.get());
    }
}
