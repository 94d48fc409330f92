package io.synod.server.group;

import io.synod.core.paxos.Ready;
import io.synod.engine.DriverMetrics;
import io.synod.server.log.GroupStorage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * One group's jobs at its pool's {@link LogWriter}: at most one Ready persisting at a time, and the storage requests
 * of its driver (compactions, the end of a repair), run in order with its persists. The writer's thread hands each
 * completion back here and rings the group's worker, which takes it in its next turn; the storage may close only
 * once no job is left.
 */
final class WriterJobs {
    /** A finished persist, or a failed storage job ({@code ready} null): {@code failure} is null when the Ready is durable. */
    record Completion(Ready ready, RuntimeException failure) {}

    private final GroupStorage storage;
    private final LogWriter writer;
    private final DriverMetrics metrics;
    /** Wakes the group's worker (a completion or the last job is done). */
    private final Runnable ring;
    /** The persist completion the log writer handed back, taken by the next turn. */
    private final AtomicReference<Completion> completion = new AtomicReference<>();
    /** Log writer jobs (persists, compactions, repair end) not finished yet: the storage closes only after them. */
    private final AtomicInteger unfinished = new AtomicInteger();
    /** The Ready handed to the log writer and not completed yet, or null (worker thread only). */
    private Ready persisting;

    WriterJobs(GroupStorage storage, LogWriter writer, DriverMetrics metrics, Runnable ring) {
        this.storage = storage;
        this.writer = writer;
        this.metrics = metrics;
        this.ring = ring;
    }

    /** Hands {@code ready} (if any) to the log writer unless an earlier one is still persisting (the driver waits for it). */
    void persist(Ready ready) {
        if (ready != null && persisting == null) {
            persisting = ready;
            unfinished.incrementAndGet();
            writer.persist(storage, ready, this::persistDone);
        }
    }

    /** On the log writer's thread: {@code ready} is durable (or its storage failed); the worker takes it next turn. */
    private void persistDone(Ready ready, RuntimeException failure, long nanos) {
        if (failure == null) {
            metrics.recordPersist(nanos, ready.entries().size());
        }
        complete(new Completion(ready, failure));
        jobDone();
    }

    /** A storage request of the driver, run by the log writer in order with this group's persists. */
    void storageJob(Consumer<GroupStorage> job) {
        unfinished.incrementAndGet();
        writer.run(storage, job, failure -> {
            if (failure != null) {
                complete(new Completion(null, failure));
            }
            jobDone();
        });
    }

    /** Hands a completion to the worker; a failure already handed stays (the group fails on it). */
    private void complete(Completion c) {
        completion.accumulateAndGet(c, (old, next) -> old != null && old.failure() != null ? old : next);
    }

    private void jobDone() {
        unfinished.decrementAndGet();
        ring.run();
    }

    /** On the worker: the completion handed back since the last call, or null; a persist is no longer under way after one. */
    Completion takeCompletion() {
        Completion done = completion.getAndSet(null);
        if (done != null) {
            persisting = null;
        }
        return done;
    }

    boolean hasCompletion() {
        return completion.get() != null;
    }

    /** Whether the log writer still has a job of this group. */
    boolean unfinished() {
        return unfinished.get() > 0;
    }

    /** The group stopped: a completion still handed back is dropped, nothing of it leaves. */
    void dropCompletion() {
        completion.set(null);
        persisting = null;
    }
}
