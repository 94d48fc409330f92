package io.synod.recipes.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException.Code;

/**
 * What the asynchronous locks share: the {@link AsyncLock} entry points and the lifecycle of one
 * acquisition ({@link AsyncAttempt}). Each lock supplies only its algorithm, as an attempt's
 * {@link AsyncAttempt#start()} and {@link AsyncAttempt#cleanUp()}.
 */
abstract class AsyncZkLock extends ZkLockBase implements AsyncLock {

  AsyncZkLock(CuratorFramework client, String lockPath, LockOptions options) {
    super(client, lockPath, options);
  }

  /** A fresh attempt of this lock's algorithm. */
  abstract AsyncAttempt newAttempt();

  @Override
  public final CompletionStage<LockHandle> acquireAsync() {
    return start();
  }

  @Override
  public final CompletionStage<Optional<LockHandle>> acquireAsync(Duration timeout) {
    return AsyncSupport.withTimeout(this, start(), timeout);
  }

  @Override
  public final CompletionStage<Void> releaseAsync() {
    return releaseWithoutBlocking();
  }

  private CompletableFuture<LockHandle> start() {
    AsyncAttempt attempt = newAttempt();
    try {
      beginAcquire(attempt, attempt::wake);
    } catch (LockStateException e) {
      return CompletableFuture.failedFuture(e);
    }
    attempt.start();
    return attempt.result;
  }

  /**
   * One acquisition: its result, the watch it waits on, and how it ends. {@code result} completes
   * once, with the hold or with an error; an attempt that fails or is cancelled is abandoned, which
   * ends the acquisition and removes what it created ({@link #cleanUp()}).
   */
  abstract class AsyncAttempt {
    final CompletableFuture<LockHandle> result = new CompletableFuture<>();

    /** The watch this attempt waits on, or null while a step is in flight. Guarded by "this". */
    WaitTicket waiting;

    /** Issues the first step; completion of {@code result} with an error abandons the attempt. */
    abstract void start();

    /** Removes what this attempt created; must be safe to call more than once. */
    abstract void cleanUp();

    /** Close: give up. Session events: look at the world again if waiting (a step in flight checks by itself). */
    final void wake(boolean lockClosed) {
      if (lockClosed) {
        fail(new LockCancelledException(lockPath, "lock closed while acquiring", null));
        return;
      }
      WaitTicket ticket;
      synchronized (this) {
        ticket = waiting;
      }
      if (ticket != null) {
        ticket.fire();
      }
    }

    final void fail(LockException error) {
      result.completeExceptionally(error);
    }

    final void stepFailed(Throwable bug) {
      fail(new LockCoordinationException(lockPath, "acquisition step failed: " + bug, Code.SYSTEMERROR, bug));
    }

    final void abandon() {
      endAcquire(this);
      cleanUp();
    }
  }
}
