package io.synod.bench.kv;

import io.synod.bench.report.LatencySummary;
import java.io.IOException;
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
     * run, warm-up included; {@code acknowledgedInWindow} those answered between the two marks of a
     * {@link Marks} (what the servers' cost sampled at those marks is divided by; 0 without marks).
     */
    record Result(long completed, long failed, double seconds, LatencySummary latency, long acknowledged,
            long acknowledgedInWindow) {
        double opsPerSecond() {
            return completed / seconds;
        }
    }

    private LoadRun() {
    }

    /**
     * Called on the thread that runs the load, once when the measured interval begins and once when it ends
     * (while the load is still running): where the servers' counters are sampled, so that their cost covers
     * the measured interval only, at steady state, not the warm-up.
     */
    interface Marks {
        void atStart() throws IOException, InterruptedException;

        void atEnd() throws IOException, InterruptedException;
    }

    private static final Marks NO_MARKS = new Marks() {
        @Override
        public void atStart() {
        }

        @Override
        public void atEnd() {
        }
    };

    static Result run(int threads, int window, long warmupMillis, long measureMillis, IntFunction<CompletableFuture<?>> op)
            throws InterruptedException {
        try {
            return run(threads, window, warmupMillis, measureMillis, op, NO_MARKS);
        } catch (IOException e) {
            throw new IllegalStateException("no marks, no I/O", e);
        }
    }

    /**
     * Runs {@code op} (given a running operation number) for {@code warmupMillis} unmeasured, then
     * {@code measureMillis} measured; waits for every issued operation to finish (at most 60 s).
     */
    static Result run(int threads, int window, long warmupMillis, long measureMillis, IntFunction<CompletableFuture<?>> op,
            Marks marks) throws InterruptedException, IOException {
        Semaphore inFlight = new Semaphore(window);
        AtomicLong sequence = new AtomicLong();
        AtomicLong completed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong acknowledged = new AtomicLong();
        AtomicLong acknowledgedInWindow = new AtomicLong();
        // Set just before each mark samples: an answer between the two belongs to the sampled cost.
        AtomicLong markedFrom = new AtomicLong(Long.MAX_VALUE);
        AtomicLong markedTo = new AtomicLong(Long.MAX_VALUE);
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
                                if (done >= markedFrom.get() && done < markedTo.get()) {
                                    acknowledgedInWindow.incrementAndGet();
                                }
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
        sleepUntil(measureFrom);
        markedFrom.set(System.nanoTime());
        marks.atStart();
        sleepUntil(measureTo);
        markedTo.set(System.nanoTime());
        marks.atEnd();
        for (Thread t : issuers) {
            t.join();
        }
        // Drain: every issued operation returns its permit.
        if (!inFlight.tryAcquire(window, 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("operations still in flight 60 s after the run ended");
        }
        int n = (int) Math.min(sampleCount.get(), MAX_SAMPLES);
        return new Result(completed.get(), failed.get(), measureMillis / 1000.0,
                LatencySummary.ofNanos(Arrays.copyOf(samples, n)), acknowledged.get(),
                acknowledgedInWindow.get());
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        for (long left = nanoTime - System.nanoTime(); left > 0; left = nanoTime - System.nanoTime()) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
