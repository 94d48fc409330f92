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
 */
final class LogWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogWriter.class);

    /** Requests taken into one batch at most (bounds how long the first of them waits for the sync). */
    static final int MAX_BATCH = 4096;

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
    private volatile boolean closed;

    LogWriter(LongSupplier clock, MeterRegistry registry, String name) {
        this.clock = clock;
        this.thread = new Thread(this::run, name);
        this.batchReadys = registry == null ? null : DistributionSummary.builder("synod.log.writer.batch")
                .description("Readys persisted per log writer batch (all groups of the node)").register(registry);
        this.syncs = registry == null ? null : Counter.builder("synod.log.writer.syncs")
                .description("storage syncs of the log writer (at most one per storage and batch)").register(registry);
    }

    void start() {
        thread.start();
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
                queue.drainTo(batch, MAX_BATCH - 1);
                stopping = batch.remove(STOP);
                write(batch);
                batch.clear();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
