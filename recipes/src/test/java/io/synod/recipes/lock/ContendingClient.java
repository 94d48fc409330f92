package io.synod.recipes.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * One client of a contention test: acquires, enters the {@link FencedResource}, leaves and releases, again and again
 * until the test's disruption is over and it has done its rounds after that. Contention thus spans the disruption
 * (rounds take milliseconds: a fixed number of them can be over before a server is even stopped), and every client
 * shows that the lock grants again afterwards. Acquisitions may fail (typed) or time out while the coordination
 * service fails over; the client then backs off briefly and tries again.
 *
 * <p>The loop is bounded by a deadline, not by a count of tries: a try that fails at once (the service is away)
 * takes microseconds, so a count would run out during a fail-over that a deadline outlasts. A lock that never grants
 * again still ends the test, with a message saying what every try of this client ended with (outcomes counted by
 * exception class and message), the last failure as the cause, and the time spent.
 */
final class ContendingClient {

    /** How long one client may take for its rounds, fail-overs included; generous: behaviour is checked, never speed. */
    static final Duration DEADLINE = Duration.ofSeconds(90);
    /** The pause after a failed try, so that a service that refuses at once is not hammered in a tight loop. */
    private static final Duration BACKOFF = Duration.ofMillis(50);

    private final String name;
    private final Locks.Any lock;
    private final Duration tryTimeout;
    private final Duration deadline;
    private final FencedResource resource;
    private final AtomicInteger grants;
    /** Outcome ("granted", "timed out", or the failure's class and message) to how often a try ended so. */
    private final Map<String, Integer> outcomes = new TreeMap<>();
    private Throwable lastFailure;
    private int tries;
    private int done;
    private int doneAfterDisruption;

    ContendingClient(String name, Locks.Any lock, Duration tryTimeout, FencedResource resource, AtomicInteger grants) {
        this(name, lock, tryTimeout, DEADLINE, resource, grants);
    }

    /** With a deadline of its own (the test that shows the deadline ends a run that cannot progress). */
    ContendingClient(String name, Locks.Any lock, Duration tryTimeout, Duration deadline, FencedResource resource, AtomicInteger grants) {
        this.name = name;
        this.lock = lock;
        this.tryTimeout = tryTimeout;
        this.deadline = deadline;
        this.resource = resource;
        this.grants = grants;
    }

    /**
     * Contends until {@code disruptionOver} holds and then for {@code rounds} more rounds, within its deadline;
     * throws an {@link AssertionError} describing the run if not. Returns the number of rounds done in all.
     */
    int run(int rounds, BooleanSupplier disruptionOver) throws Exception {
        long started = System.nanoTime();
        long deadlineNanos = started + deadline.toNanos();
        while (doneAfterDisruption < rounds) {
            if (System.nanoTime() - deadlineNanos >= 0) {
                throw new AssertionError(summary(rounds, started), lastFailure);
            }
            tries++;
            boolean afterDisruption = disruptionOver.getAsBoolean();
            Optional<LockHandle> hold;
            long tryStarted = System.nanoTime();
            try {
                hold = lock.acquire(tryTimeout);
            } catch (LockException e) {
                count("acquire", e);
                Thread.sleep(BACKOFF.toMillis());
                continue;
            }
            if (hold.isEmpty()) {
                // A timed acquisition that gives up long before its timeout is worth telling apart.
                boolean early = System.nanoTime() - tryStarted < tryTimeout.toNanos() / 2;
                outcomes.merge(early ? "not granted, early" : "timed out", 1, Integer::sum);
                if (early) {
                    Thread.sleep(BACKOFF.toMillis());
                }
                continue;
            }
            outcomes.merge("granted", 1, Integer::sum);
            grants.incrementAndGet();
            resource.enter(hold.get().fencingToken());
            Thread.sleep(2);
            resource.exit();
            try {
                lock.release();
            } catch (LockException e) {
                // Not confirmed in time; the delete goes on in the background.
                count("release", e);
            }
            done++;
            if (afterDisruption) {
                doneAfterDisruption++;
            }
        }
        // Kept in the test's output, so that a passing run also shows how hard the fail-over was on each client.
        System.out.println(summary(rounds, started));
        return done;
    }

    /**
     * Waits for every client's run and returns the rounds they did in all; fails with all their failures at once (one client's message rarely tells
     * whether the lock or the service was stuck). The bound leaves room past {@link #DEADLINE} for the try in
     * progress, itself bounded by {@link ZkTestSupport#WAIT}.
     */
    static int awaitAll(List<Future<Integer>> runs) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.plus(ZkTestSupport.WAIT.multipliedBy(2)).toNanos();
        List<String> failures = new ArrayList<>();
        Throwable first = null;
        int rounds = 0;
        for (Future<Integer> run : runs) {
            try {
                rounds += run.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                failures.add(String.valueOf(e.getCause()));
                if (first == null) {
                    first = e.getCause();
                }
            } catch (TimeoutException e) {
                failures.add("a client did not end within its bound");
            }
        }
        if (!failures.isEmpty()) {
            throw new AssertionError(failures.size() + " of " + runs.size() + " clients failed:\n  "
                    + String.join("\n  ", failures), first);
        }
        return rounds;
    }

    private void count(String step, LockException failure) {
        lastFailure = failure;
        outcomes.merge(step + " " + describe(failure), 1, Integer::sum);
    }

    private static String describe(Throwable failure) {
        String described = failure.getClass().getSimpleName() + ": " + failure.getMessage();
        return failure.getCause() == null ? described : described + " (cause " + failure.getCause() + ")";
    }

    private String summary(int rounds, long startedNanos) {
        long elapsedMillis = Duration.ofNanos(System.nanoTime() - startedNanos).toMillis();
        return name + ": " + doneAfterDisruption + " of " + rounds + " rounds after the disruption (" + done
                + " in all) after " + tries + " tries in " + elapsedMillis
                + " ms; outcomes " + outcomes + "; last failure: " + (lastFailure == null ? "none" : describe(lastFailure));
    }
}
