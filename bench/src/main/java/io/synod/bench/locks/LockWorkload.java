package io.synod.bench.locks;

import org.apache.curator.framework.CuratorFramework;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop lock workload of the seed paper (Fig. 10 and Figs. 13–16): lock requests arrive as a
 * Poisson process (exponential inter-arrival times) whatever the lock is doing, and each holder keeps
 * the lock for an exponential critical section. A request is served by the first idle client session
 * (a pool of {@code clients}, handed out longest-idle first, the same way for sync and async primitives so
 * that the dispatch never differs between them); when all are busy it waits in a backlog, bounded by the
 * request count. Sync primitives run each client on its own thread, fed through a one-slot mailbox.
 * Acquire latency is measured from the client's acquire call to the grant; the backlog wait is
 * reported separately.
 *
 * <p>Bounded: {@code requestCount} requests, each acquire bounded by {@code acquireTimeout}, the whole run
 * by {@code runTimeout} after the last arrival; requests still open then are recorded as unfinished.
 */
public final class LockWorkload {

    /** Critical sections are capped at this many means, so one extreme draw cannot stall a run. */
    static final int SERVICE_CAP_IN_MEANS = 20;

    private final LockWorkloadSpec spec;
    private final int clientCount;
    private final String lockPath;
    private final LockUnderTest.ClientLocks factory;
    private final ScheduledExecutorService timer;

    private final LockRequestRecord[] records;
    private final long[] arrivalOffsetsNanos;
    private final long[] serviceNanos;
    private final ArrayBlockingQueue<Integer> backlog;
    private final CountDownLatch finished;
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final ArrayDeque<Integer> idleClients = new ArrayDeque<>();
    private final List<ArrayBlockingQueue<Integer>> syncMailboxes = new ArrayList<>();
    private final List<LockUnderTest> locks = new ArrayList<>();
    private volatile long runStartNanos;

    public LockWorkload(LockWorkloadSpec spec, List<CuratorFramework> clients, String lockPath,
                        LockUnderTest.Factory factory, ScheduledExecutorService timer) {
        this(spec, clients.size(), lockPath, LockUnderTest.ClientLocks.of(factory, clients), timer);
    }

    /** A workload over {@code clientCount} client sessions of any backend; {@code factory} makes client k's lock. */
    public LockWorkload(LockWorkloadSpec spec, int clientCount, String lockPath, LockUnderTest.ClientLocks factory,
                        ScheduledExecutorService timer) {
        if (clientCount < 1) {
            throw new IllegalArgumentException("need at least one client");
        }
        this.spec = spec;
        this.clientCount = clientCount;
        this.lockPath = lockPath;
        this.factory = factory;
        this.timer = timer;
        int n = spec.requestCount();
        this.records = new LockRequestRecord[n];
        this.arrivalOffsetsNanos = new long[n];
        this.serviceNanos = new long[n];
        SplittableRandom random = new SplittableRandom(spec.seed());
        long arrival = 0;
        long serviceCap = spec.meanServiceNanos() * SERVICE_CAP_IN_MEANS;
        for (int i = 0; i < n; i++) {
            arrival += exponential(random, spec.meanInterArrivalNanos());
            arrivalOffsetsNanos[i] = arrival;
            serviceNanos[i] = Math.min(serviceCap, exponential(random, spec.meanServiceNanos()));
            records[i] = new LockRequestRecord(i);
        }
        this.backlog = new ArrayBlockingQueue<>(Math.max(1, n));
        this.finished = new CountDownLatch(n);
    }

    static long exponential(SplittableRandom random, long meanNanos) {
        return Math.round(-Math.log(1.0 - random.nextDouble()) * meanNanos);
    }

    /** Runs the workload to completion (or to its time bound) and summarizes it. */
    public LockRunResult run() throws InterruptedException {
        for (int k = 0; k < clientCount; k++) {
            locks.add(factory.create(spec.primitive(), k, lockPath));
        }
        List<Thread> workers = new ArrayList<>();
        for (int k = 0; k < clientCount; k++) {
            idleClients.add(k);
            if (!spec.primitive().isAsync()) {
                int clientIndex = k;
                syncMailboxes.add(new ArrayBlockingQueue<>(1));
                Thread worker = new Thread(() -> syncWorker(clientIndex), "lock-worker-" + k);
                worker.setDaemon(true);
                workers.add(worker);
            }
        }
        runStartNanos = System.nanoTime();
        workers.forEach(Thread::start);
        Thread dispatcher = new Thread(this::dispatchArrivals, "lock-arrivals");
        dispatcher.setDaemon(true);
        dispatcher.start();

        long lastArrivalNanos = arrivalOffsetsNanos.length == 0 ? 0 : arrivalOffsetsNanos[arrivalOffsetsNanos.length - 1];
        long deadlineNanos = runStartNanos + lastArrivalNanos + spec.runTimeout().toNanos();
        long waitNanos = deadlineNanos - System.nanoTime();
        boolean completed = finished.await(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
        stopped.set(true);
        dispatcher.interrupt();
        dispatcher.join(5_000);
        for (Thread worker : workers) {
            if (!completed) {
                worker.interrupt();
            }
            worker.join(5_000);
        }
        for (LockUnderTest lock : locks) {
            try {
                lock.close();
            } catch (Exception e) {
                // A lock that fails to close leaves an ephemeral node behind in a path no later run uses.
            }
        }
        return LockRunResult.of(spec, clientCount, runStartNanos, records, completed);
    }

    private void dispatchArrivals() {
        for (int i = 0; i < records.length && !stopped.get(); i++) {
            long due = runStartNanos + arrivalOffsetsNanos[i];
            long now;
            while ((now = System.nanoTime()) < due) {
                LockSupport.parkNanos(due - now);
                if (Thread.currentThread().isInterrupted() || stopped.get()) {
                    return;
                }
            }
            records[i].arrivalNanos = now;
            backlog.offer(i); // capacity == request count: never full
            pump();
        }
    }

    private void syncWorker(int clientIndex) {
        LockUnderTest lock = locks.get(clientIndex);
        while (!stopped.get()) {
            Integer request;
            try {
                request = syncMailboxes.get(clientIndex).poll(20, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (request == null) {
                continue;
            }
            LockRequestRecord record = records[request];
            record.clientIndex = clientIndex;
            try {
                record.acquireStartNanos = System.nanoTime();
                Optional<Long> token = lock.acquireBlocking(spec.acquireTimeout());
                if (token.isEmpty()) {
                    record.outcome = LockRequestRecord.Outcome.TIMEOUT;
                } else {
                    record.acquiredNanos = System.nanoTime();
                    record.fencingToken = token.get();
                    holdFor(serviceNanos[request]);
                    record.criticalSectionEndNanos = System.nanoTime();
                    lock.releaseBlocking();
                    record.releasedNanos = System.nanoTime();
                    record.outcome = LockRequestRecord.Outcome.OK;
                }
            } catch (InterruptedException e) {
                record.outcome = LockRequestRecord.Outcome.UNFINISHED;
                finished.countDown();
                return;
            } catch (Exception e) {
                record.outcome = LockRequestRecord.Outcome.ERROR;
                record.error = e.toString();
            }
            clientDone(clientIndex);
        }
    }

    private static void holdFor(long nanos) throws InterruptedException {
        long end = System.nanoTime() + nanos;
        long left;
        while ((left = end - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    /** Hands backlog requests to idle clients (longest idle first); called on arrivals and whenever a client frees up. */
    private void pump() {
        List<int[]> starts = new ArrayList<>();
        synchronized (idleClients) {
            while (!stopped.get() && !idleClients.isEmpty() && !backlog.isEmpty()) {
                starts.add(new int[] {idleClients.pollFirst(), backlog.poll()});
            }
        }
        for (int[] start : starts) {
            if (spec.primitive().isAsync()) {
                startAsync(start[0], start[1]);
            } else {
                // The client was idle, so its one-slot mailbox is empty.
                syncMailboxes.get(start[0]).offer(start[1]);
            }
        }
    }

    private void startAsync(int clientIndex, int request) {
        LockUnderTest lock = locks.get(clientIndex);
        LockRequestRecord record = records[request];
        record.clientIndex = clientIndex;
        record.acquireStartNanos = System.nanoTime();
        lock.acquireAsync(spec.acquireTimeout()).whenComplete((token, acquireError) -> {
            if (acquireError != null) {
                record.outcome = LockRequestRecord.Outcome.ERROR;
                record.error = acquireError.toString();
                clientDone(clientIndex);
            } else if (token.isEmpty()) {
                record.outcome = LockRequestRecord.Outcome.TIMEOUT;
                clientDone(clientIndex);
            } else {
                record.acquiredNanos = System.nanoTime();
                record.fencingToken = token.get();
                // The critical section runs on a timer: no thread is parked while the lock is held.
                timer.schedule(() -> {
                    record.criticalSectionEndNanos = System.nanoTime();
                    lock.releaseAsync().whenComplete((ignored, releaseError) -> {
                        record.releasedNanos = System.nanoTime();
                        if (releaseError != null) {
                            record.outcome = LockRequestRecord.Outcome.ERROR;
                            record.error = "release: " + releaseError;
                        } else {
                            record.outcome = LockRequestRecord.Outcome.OK;
                        }
                        clientDone(clientIndex);
                    });
                }, serviceNanos[request], TimeUnit.NANOSECONDS);
            }
        });
    }

    private void clientDone(int clientIndex) {
        finished.countDown();
        synchronized (idleClients) {
            idleClients.addLast(clientIndex);
        }
        pump();
    }
}
