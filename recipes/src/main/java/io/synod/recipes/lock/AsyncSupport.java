package io.synod.recipes.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;

/** The timeout form of an asynchronous acquisition, built on cancellation. */
final class AsyncSupport {

    private AsyncSupport() {}

    /**
     * Completes with the hold, or with empty when {@code timeout} elapses first (the acquisition is then cancelled,
     * which removes its node). Cancelling the returned future cancels the acquisition; a hold granted in that
     * instant is released.
     */
    static CompletionStage<Optional<LockHandle>> withTimeout(LockBase lock, CompletableFuture<LockHandle> acquisition, Duration timeout) {
        CompletableFuture<Optional<LockHandle>> outcome = new CompletableFuture<>();
        ScheduledFuture<?> timer = LockScheduler.schedule(() -> {
            if (acquisition.cancel(false)) {
                outcome.complete(Optional.empty());
            }
        }, timeout.toNanos());
        acquisition.whenComplete((hold, error) -> {
            timer.cancel(false);
            if (error == null) {
                if (!outcome.complete(Optional.of(hold)) && hold instanceof Hold granted) {
                    lock.releaseOrphanedGrant(granted); // the caller cancelled in the same instant: nobody holds this
                }
            } else if (!(LockBase.unwrap(error) instanceof CancellationException)) {
                outcome.completeExceptionally(LockBase.unwrap(error));
            }
        });
        outcome.whenComplete((ignored, error) -> {
            if (outcome.isCancelled()) {
                acquisition.cancel(false);
            }
        });
        return outcome;
    }
}
