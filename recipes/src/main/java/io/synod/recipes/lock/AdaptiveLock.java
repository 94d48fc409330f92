package io.synod.recipes.lock;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A test-and-set lock that picks its waiting strategy itself ({@link AdaptivePolicy}), between acquisitions, from
 * what it measures: the round trip of a write (each release is one delete, and each acquisition whose first create
 * succeeded is one create), and the share
 * of recent acquisitions that found the lock taken (their first create was refused). Both are exponentially
 * weighted moving averages (weight {@link #WEIGHT} for the newest sample); the share starts at
 * {@link #INITIAL_CONTENDED_SHARE}, since polling costs nothing extra when the first create succeeds. The round trip belongs to the client's connection, so all adaptive locks of one client share it; the
 * contention belongs to the lock object. Everything else is {@link AsyncTasLock}: fencing token, loss, protected
 * clean-up.
 *
 * <p>Contenders on one path may mix adaptive locks with any test-and-set lock ({@link ZkLocks#tasLock},
 * {@link ZkLocks#asyncTasLock}, any strategy): they share the holder node. Not with queue locks.
 */
public final class AdaptiveLock implements AsyncLock {

    /** Weight of the newest sample in the moving averages. */
    static final double WEIGHT = 0.25;
    /** The share assumed before anything is measured: contended, until uncontended acquisitions say otherwise. */
    static final double INITIAL_CONTENDED_SHARE = 0.5;

    /** The write round trip per client, shared by its adaptive locks; weak keys, so a closed client is forgotten. */
    private static final Map<Object, double[]> RTT_BY_CLIENT =
            Collections.synchronizedMap(new WeakHashMap<>());

    private final AsyncTasLock lock;
    /** One element: the client's moving write round trip in nanoseconds, negative before the first sample. */
    private final double[] rtt;
    // Guarded by "this".
    private double contendedShare = INITIAL_CONTENDED_SHARE;
    private LockStrategy lastChoice = LockStrategy.watch();

    AdaptiveLock(LockBackend backend, String path, LockOptions options) {
        this.lock = new AsyncTasLock(backend, path, options.withStrategy(LockStrategy.watch()));
        this.rtt = RTT_BY_CLIENT.computeIfAbsent(backend.connectionIdentity(), ignored -> new double[] {-1});
    }

    private long rttNanos() {
        synchronized (rtt) {
            return (long) rtt[0];
        }
    }

    /** The strategy the next acquisition will use. */
    public synchronized LockStrategy nextStrategy() {
        return AdaptivePolicy.choose(rttNanos(), contendedShare);
    }

    /** The strategy the latest acquisition used. */
    public synchronized LockStrategy lastStrategy() {
        return lastChoice;
    }

    /** The measured RTT, empty before the first release. */
    public Optional<Duration> measuredRtt() {
        long nanos = rttNanos();
        return nanos < 0 ? Optional.empty() : Optional.of(Duration.ofNanos(nanos));
    }

    /** Whether the latest (or current) acquisition found the lock taken. */
    boolean latestFoundTaken() {
        return lock.latestFoundTaken();
    }

    /** The moving share of acquisitions that found the lock taken. */
    public synchronized double contendedShare() {
        return contendedShare;
    }

    @Override
    public CompletionStage<LockHandle> acquireAsync() {
        long start = prepare();
        CompletableFuture<LockHandle> acquisition = lock.acquireAsync().toCompletableFuture();
        acquisition.whenComplete((hold, error) -> {
            if (error == null) {
                recordAcquisition(lock.latestFoundTaken(), System.nanoTime() - start);
            }
        });
        return acquisition;
    }

    @Override
    public CompletionStage<Optional<LockHandle>> acquireAsync(Duration timeout) {
        long start = prepare();
        CompletableFuture<Optional<LockHandle>> acquisition = lock.acquireAsync(timeout).toCompletableFuture();
        acquisition.whenComplete((hold, error) -> {
            if (error == null) {
                // A timeout waited for a holder too.
                recordAcquisition(lock.latestFoundTaken() || hold.isEmpty(), System.nanoTime() - start);
            }
        });
        return acquisition;
    }

    @Override
    public CompletionStage<Void> releaseAsync() {
        long start = System.nanoTime();
        boolean held = lock.isAcquiredInThisProcess();
        CompletableFuture<Void> release = lock.releaseAsync().toCompletableFuture();
        release.whenComplete((ignored, error) -> {
            if (error == null && held) {
                recordRtt(System.nanoTime() - start);
            }
        });
        return release;
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return lock.isAcquiredInThisProcess();
    }

    @Override
    public void close() {
        lock.close();
    }

    /** Chooses the strategy of the acquisition about to start; returns its start time. */
    private long prepare() {
        LockStrategy choice = nextStrategy();
        synchronized (this) {
            lastChoice = choice;
        }
        // If an acquisition is in progress, it keeps the strategy it started with, and the new one is refused anyway.
        lock.useStrategy(choice);
        return System.nanoTime();
    }

    /**
     * An acquisition whose first create succeeded was exactly one create: one write round trip, a sample as good as a
     * release's (so the round trip follows a changed network from the first acquisition on, not only after releases).
     */
    private void recordAcquisition(boolean contended, long nanos) {
        if (!contended) {
            recordRtt(nanos);
        }
        recordContention(contended);
    }

    private synchronized void recordContention(boolean contended) {
        contendedShare = (1 - WEIGHT) * contendedShare + WEIGHT * (contended ? 1 : 0);
    }

    private void recordRtt(long nanos) {
        synchronized (rtt) {
            rtt[0] = rtt[0] < 0 ? nanos : (1 - WEIGHT) * rtt[0] + WEIGHT * nanos;
        }
    }

    @Override
    public String toString() {
        return "AdaptiveLock{" + lock.lockPath + ", next " + nextStrategy() + "}";
    }
}
