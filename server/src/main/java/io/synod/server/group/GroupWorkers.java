package io.synod.server.group;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's bounded pool of group workers: W threads, worker k running the groups g with g mod W = k
 * ({@link GroupLoop#turn()}), and one {@link LogWriter} thread that persists every group's Readys. A node with
 * G groups so runs W + 1 threads for them instead of one per group, and its groups' fsyncs are shared per
 * writer batch. The partition is fixed (Dragonboat's step workers): a group's driver is only ever touched by its
 * one worker, and a worker never waits for an fsync (the completion comes back as an input, as CockroachDB's
 * scheduler does it). A pass of a worker gives each of its groups one bounded turn, then sleeps until the doorbell
 * rings (an input, a completion, a stop) or its earliest group tick is due.
 */
public final class GroupWorkers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupWorkers.class);

    /** Longest sleep of a worker with no group (it has no tick to wait for). */
    private static final long IDLE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * Thread names lead with the role: the kernel keeps a thread's first 15 characters, and a profile by thread (the
     * bench's /proc counters, top -H) must tell the workers from the log writer. A worker is
     * {@code WORKER_THREAD + k + THREAD_OF + pool}, the log writer {@code LOG_WRITER_THREAD + THREAD_OF + pool}.
     */
    public static final String WORKER_THREAD = "synod-worker-";
    public static final String LOG_WRITER_THREAD = "synod-logwriter";
    public static final String THREAD_OF = " of ";

    private final Worker[] workers;
    private final LogWriter writer;
    private final LongSupplier clock;
    private volatile boolean closed;

    private GroupWorkers(int count, LongSupplier clock, MeterRegistry registry, String name) {
        if (count < 1) {
            throw new IllegalArgumentException("a worker pool needs at least one worker, got " + count);
        }
        this.clock = clock;
        this.writer = new LogWriter(clock, registry, LOG_WRITER_THREAD + THREAD_OF + name, count);
        this.workers = new Worker[count];
        for (int k = 0; k < count; k++) {
            workers[k] = new Worker(k, WORKER_THREAD + k + THREAD_OF + name, clock, registry, writer);
        }
    }

    /**
     * Starts {@code count} workers and the log writer, reading time from {@code clock} (monotonic nanoseconds;
     * the node's test clock under a clock fault). {@code registry} gets the per-worker pass time and queue
     * depth and the writer's batch meters; null registers none.
     */
    public static GroupWorkers start(int count, LongSupplier clock, MeterRegistry registry, String name) {
        GroupWorkers pool = new GroupWorkers(count, clock, registry, name);
        pool.writer.start();
        for (Worker w : pool.workers) {
            w.thread.start();
        }
        return pool;
    }

    /**
     * Runs {@code hook} on each worker's thread at the end of every pass, after all of its groups' turns: the
     * node flushes its peer links there ({@code PeerNetwork#flush}), so that what every group of the pass sends to
     * one peer leaves together. Call before groups are added; a hook must not block.
     */
    public void afterEachPass(Runnable hook) {
        for (Worker w : workers) {
            w.afterPass = hook;
        }
    }

    /** The default worker count: one per processor the JVM may use. */
    public static int defaultCount() {
        return Runtime.getRuntime().availableProcessors();
    }

    /**
     * Workers per node for {@code nodes} nodes sharing this host (a local cluster): max(1, processors / nodes), so
     * that the nodes together run about one worker per core. Each node taking one per processor ran 6 workers on
     * 2 cores for 3 nodes: a node's groups then shared fewer passes, with more fsyncs, hand-offs and CPU per write
     * (docs/bench-kv.md, "Per-group fixed costs").
     */
    public static int coLocatedCount(int nodes) {
        return Math.max(1, defaultCount() / Math.max(1, nodes));
    }

    LongSupplier clock() {
        return clock;
    }

    LogWriter writer() {
        return writer;
    }

    /** The worker that runs {@code group}: the fixed partition g mod W. */
    Worker workerFor(int group) {
        return workers[Math.floorMod(group, workers.length)];
    }

    public int size() {
        return workers.length;
    }

    /** Stops the workers, then the log writer (bounded waits); the groups should be halted or closed first. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Worker w : workers) {
            w.running = false;
            w.ring();
        }
        for (Worker w : workers) {
            join(w.thread);
        }
        writer.close();
    }

    static void join(Thread thread) {
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
            if (thread.isAlive()) {
                LOG.warn("{} did not stop within 5 s", thread.getName());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One worker: its groups, its doorbell and its thread. */
    static final class Worker {
        private final int index;
        private final Thread thread;
        /** Groups started since the last pass, taken into {@link #groups} by the worker's thread. */
        private final ConcurrentLinkedQueue<GroupLoop> added = new ConcurrentLinkedQueue<>();
        /** The worker thread's own list. */
        private final List<GroupLoop> groups = new ArrayList<>();
        /** The same groups, for the queue gauge read on the scrape thread. */
        private final List<GroupLoop> members = new CopyOnWriteArrayList<>();
        /** Rung after every input (capacity 1): the worker waits on it when none of its groups has work. */
        private final BlockingQueue<Boolean> doorbell = new ArrayBlockingQueue<>(1);
        private final Timer passTime;
        private final LongSupplier clock;
        /** Told where each pass begins and ends, so that it syncs one batch for the whole pass. */
        private final LogWriter writer;
        private volatile boolean running = true;
        private volatile Runnable afterPass = () -> { };

        Worker(int index, String name, LongSupplier clock, MeterRegistry registry, LogWriter writer) {
            this.index = index;
            this.clock = clock;
            this.writer = writer;
            this.thread = new Thread(this::run, name);
            String k = Integer.toString(index);
            this.passTime = registry == null ? null : Timer.builder("synod.worker.pass")
                    .description("one pass of a group worker: a bounded turn of each of its groups").tag("worker", k)
                    .register(registry);
            if (registry != null) {
                Gauge.builder("synod.worker.queued", this, Worker::queued)
                        .description("inputs waiting in the inboxes of this worker's groups").tag("worker", k)
                        .register(registry);
            }
        }

        void add(GroupLoop group) {
            members.add(group);
            added.add(group);
            ring();
        }

        /** Wakes the worker if it waits (a no-op when it is already rung). */
        void ring() {
            doorbell.offer(Boolean.TRUE);
        }

        private double queued() {
            long sum = 0;
            for (GroupLoop g : members) {
                sum += g.queued();
            }
            return sum;
        }

        private void run() {
            try {
                while (running) {
                    // Cleared before the pass: an input queued before the clear is taken now, and one queued
                    // after it rings again, so the wait below never sleeps on a queued input.
                    doorbell.clear();
                    GroupLoop g;
                    while ((g = added.poll()) != null) {
                        groups.add(g);
                    }
                    long start = System.nanoTime();
                    long wake = Long.MAX_VALUE;
                    boolean more = false;
                    writer.passStarted(index);
                    try {
                        for (Iterator<GroupLoop> it = groups.iterator(); it.hasNext(); ) {
                            GroupLoop group = it.next();
                            GroupLoop.Turn turn = group.turn();
                            if (turn == GroupLoop.Turn.GONE) {
                                it.remove();
                                members.remove(group);
                            } else {
                                more |= turn == GroupLoop.Turn.MORE;
                                wake = wake == Long.MAX_VALUE ? group.nextTick() : earlier(wake, group.nextTick());
                            }
                        }
                    } finally {
                        writer.passEnded(index);
                    }
                    afterPass.run();
                    if (passTime != null) {
                        passTime.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                    }
                    if (!more) {
                        long wait = wake == Long.MAX_VALUE ? IDLE_WAIT_NANOS : wake - clock.getAsLong();
                        if (wait > 0) {
                            doorbell.poll(wait, TimeUnit.NANOSECONDS);
                        }
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | Error e) {
                // A group's failure is handled in its turn; this is a bug in the worker itself.
                LOG.error("group worker {} failed; its groups stop being served", index, e);
                throw e;
            }
        }
    }

    /** The earlier of two monotonic readings (wrap-safe). */
    private static long earlier(long a, long b) {
        return a - b <= 0 ? a : b;
    }
}
