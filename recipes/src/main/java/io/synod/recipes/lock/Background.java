package io.synod.recipes.lock;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;

/**
 * Curator background operations as futures, so the asynchronous locks read as a chain of steps instead of
 * nested callbacks. Curator applies its retry policy before the future completes; the future completes on
 * ZooKeeper's event thread with whatever result code the operation finally had (never exceptionally for a
 * ZooKeeper error: callers branch on the code).
 */
final class Background {

    /** Starts one background operation with the given callback. */
    @FunctionalInterface
    interface Operation {
        void start(BackgroundCallback callback) throws Exception;
    }

    private Background() {}

    static CompletableFuture<CuratorEvent> run(Operation operation) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        try {
            operation.start((client, event) -> result.complete(event));
        } catch (Exception e) {
            // Curator refuses to start an operation only for local reasons (client closed, bad path).
            result.completeExceptionally(e);
        }
        return result;
    }

    /**
     * Runs {@code step} with the operation's outcome. Should the step itself throw (a bug), {@code stepFailed}
     * receives the error, so that an acquisition is failed rather than left waiting forever.
     */
    static <T> void then(CompletableFuture<T> operation, BiConsumer<T, Throwable> step, Consumer<Throwable> stepFailed) {
        operation.handle((event, error) -> {
            step.accept(event, error);
            return null;
        }).exceptionally(stepError -> {
            stepFailed.accept(stepError);
            return null;
        });
    }

    static KeeperException.Code code(CuratorEvent event) {
        return KeeperException.Code.get(event.getResultCode());
    }
}
