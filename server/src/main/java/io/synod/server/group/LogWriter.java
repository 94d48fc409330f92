package io.synod.server.group;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.synod.core.paxos.Ready;
import io.synod.server.log.GroupStorage;
import io.synod.server.log.StorageFailure;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's one thread that writes its groups' storage. The workers hand it every Ready to persist, and the
 * storage requests of their drivers (compaction, end of repair); it takes everything queued at once, appends
 * each Ready ({@link GroupStorage#append}), then syncs each distinct storage once ({@link GroupStorage#sync}),
 * and only then reports each completion, which goes back to the group's worker as an input. So one fsync covers
 * every Ready of a storage queued while the previous batch was being synced (group commit across passes, and
 * across groups once groups share a log), and no worker waits for a disk. Requests of one group run in the order
 * they were queued; at most one persist per group is outstanding (the driver's contract), so the queue is bounded
 * by the groups. A storage that fails fails every request of that batch that touched it; the others go on.
 *
 * <p><b>One batch per pass.</b> A worker's pass hands over its groups' Readys one after the other; a writer that
 * woke on the first would sync it alone and the next group's Ready a moment later with a second fsync (before
 * this, 4 groups on a node made 4.8 times the fsyncs per write of 1 group). So the workers mark their passes
 * ({@link #passStarted}, {@link #passEnded}) and the writer, once it has a request, waits for every pass under way
 * at that moment to end (at most {@link #PASS_WAIT_NANOS}) before it takes the batch: one synced batch for what all
 * the node's groups produced in their passes (Dragonboat's one synced batch per worker pass, across workers). A
 * pass never waits for the writer, so the wait is bounded by a pass, and by the bound when a worker is preempted.
 */
final class LogWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogWriter.class);

    /** Requests taken into one batch at most (bounds how long the first of them waits for the sync). */
    static final int MAX_BATCH = 4096;

    /** Longest the writer waits for the passes under way to end before it writes what it has. */
    static final long PASS_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** A Ready is durable ({@code failure} null) or its storage failed, after {@code nanos} of write and sync. */
    interface PersistDone {
        void done(Ready ready, RuntimeException failure, long nanos);
    }

    /** One request: a Ready to append and sync, or a storage operation. */
    private record Job(GroupStorage storage, Ready ready, PersistDone persisted, Consumer<GroupStorage> operation,
            Consumer<RuntimeException> operated) {}

    private static final Job STOP = new Job(null, null, null, null, null);

    private final LinkedBlockingQueue<Job> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final LongSupplier clock;
    private final DistributionSummary batchReadys;
    private final Counter syncs;
    /** Per worker: its passes started plus ended, so odd while a pass is under way. */
    private final AtomicLongArray passes;
    private final long passWaitNanos;
    /** Set while the writer parks for passes to end: a worker ending one then unparks it. */
    private volatile boolean awaitingPasses;
    private volatile boolean closed;

    LogWriter(LongSupplier clock, MeterRegistry registry, String name, int workers) {
        this(clock, registry, name, workers, PASS_WAIT_NANOS);
    }

    /** As above, waiting at most {@code passWaitNanos} for the passes under way (tests make it long). */
    LogWriter(LongSupplier clock, MeterRegistry registry, String name, int workers, long passWaitNanos) {
        this.passWaitNanos = passWaitNanos;
        this.clock = clock;
        this.thread = new Thread(this::run, name);
        this.passes = new AtomicLongArray(workers);
        this.batchReadys = registry == null ? null : DistributionSummary.builder("synod.log.writer.batch")
                .description("Readys persisted per log writer batch (all groups of the node)").register(registry);
        this.syncs = registry == null ? null : Counter.builder("synod.log.writer.syncs")
                .description("storage syncs of the log writer (at most one per storage and batch)").register(registry);
    }

    void start() {
        thread.start();
    }

    /** Worker {@code worker} begins a pass over its groups (on its thread). */
    void passStarted(int worker) {
        passes.incrementAndGet(worker);
    }

    /** Worker {@code worker} ended its pass: everything it handed over in it may now be written. */
    void passEnded(int worker) {
        passes.incrementAndGet(worker);
        if (awaitingPasses) {
            LockSupport.unpark(thread);
        }
    }

    /** Whether the writer is waiting for passes to end (tests). */
    boolean awaitingPasses() {
        return awaitingPasses;
    }

    /** Persists {@code ready} (append, then sync with the batch); {@code done} runs on the writer's thread. */
    void persist(GroupStorage storage, Ready ready, PersistDone done) {
        queue.add(new Job(storage, ready, done, null, null));
    }

    /** Runs {@code operation} on {@code storage} in queue order; {@code done} gets its failure or null. */
    void run(GroupStorage storage, Consumer<GroupStorage> operation, Consumer<RuntimeException> done) {
        queue.add(new Job(storage, null, null, operation, done));
    }

    private void run() {
        List<Job> batch = new ArrayList<>();
        boolean stopping = false;
        try {
            while (!stopping) {
                batch.add(queue.take());
                awaitPasses();
                queue.drainTo(batch, MAX_BATCH - 1);
                stopping = batch.remove(STOP);
                write(batch);
                batch.clear();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits (bounded) until every worker pass under way now has ended, so its groups' requests join this batch. */
    private void awaitPasses() {
        int n = passes.length();
        long[] seen = new long[n];
        boolean any = false;
        for (int k = 0; k < n; k++) {
            seen[k] = passes.get(k);
            any |= (seen[k] & 1) != 0;
        }
        if (!any) {
            return;
        }
        long deadline = System.nanoTime() + passWaitNanos;
        awaitingPasses = true;
        try {
            for (int k = 0; k < n; k++) {
                while ((seen[k] & 1) != 0 && passes.get(k) == seen[k]) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    LockSupport.parkNanos(this, left);
                }
            }
        } finally {
            awaitingPasses = false;
        }
    }

    /** One batch: the appends and operations in order, one sync per storage appended to, then the completions. */
    private void write(List<Job> batch) {
        long start = clock.getAsLong();
        Map<GroupStorage, RuntimeException> failed = new IdentityHashMap<>();
        Set<GroupStorage> toSync = Collections.newSetFromMap(new IdentityHashMap<>());
        List<GroupStorage> syncOrder = new ArrayList<>();
        int readys = 0;
        for (Job job : batch) {
            if (failed.containsKey(job.storage())) {
                continue; // no write after a failed one: the group stops (no retry after a failed fsync)
            }
            try {
                if (job.ready() != null) {
                    readys++;
                    job.storage().append(job.ready());
                    if (toSync.add(job.storage())) {
                        syncOrder.add(job.storage());
                    }
                } else {
                    job.operation().accept(job.storage());
                }
            } catch (RuntimeException e) {
                failed.put(job.storage(), asFailure(e));
            }
        }
        for (GroupStorage storage : syncOrder) {
            if (failed.containsKey(storage)) {
                continue;
            }
            try {
                storage.sync();
                if (syncs != null) {
                    syncs.increment();
                }
            } catch (RuntimeException e) {
                failed.put(storage, asFailure(e));
            }
        }
        long nanos = clock.getAsLong() - start;
        if (batchReadys != null && readys > 0) {
            batchReadys.record(readys);
        }
        for (Job job : batch) {
            RuntimeException failure = failed.get(job.storage());
            try {
                if (job.ready() != null) {
                    job.persisted().done(job.ready(), failure, nanos);
                } else {
                    job.operated().accept(failure);
                }
            } catch (RuntimeException e) {
                LOG.error("log writer: a completion failed", e);
            }
        }
    }

    private static RuntimeException asFailure(RuntimeException e) {
        return e instanceof StorageFailure ? e : new StorageFailure("storage request failed: " + e, e);
    }

    /** Finishes what is queued, then stops (bounded wait). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        queue.add(STOP);
        GroupWorkers.join(thread);
    }
}
