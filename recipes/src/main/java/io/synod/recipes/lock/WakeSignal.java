package io.synod.recipes.lock;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * What a blocked synchronous acquisition sleeps on: a one-shot ZooKeeper watch on the node it waits for, and the
 * lock's own wake-ups (session events, close). Connection-state notifications that ZooKeeper sends to every
 * watch (Disconnected, SyncConnected) do not wake it: the watch survives them within the session.
 */
final class WakeSignal implements Watcher {

  private final ReentrantLock mutex = new ReentrantLock();
  private final Condition woken = mutex.newCondition();
  private boolean signalled;

  @Override
  public void process(WatchedEvent event) {
    if (event.getType() != Event.EventType.None || event.getState() == Event.KeeperState.Expired
        || event.getState() == Event.KeeperState.Closed) {
      wake();
    }
  }

  void wake() {
    mutex.lock();
    try {
      signalled = true;
      woken.signalAll();
    } finally {
      mutex.unlock();
    }
  }

  /**
   * Waits until woken, or when {@code timed} until {@code deadlineNanos} (a {@link System#nanoTime()} value).
   * Returns {@code false} on timeout.
   */
  boolean await(boolean timed, long deadlineNanos) throws InterruptedException {
    mutex.lock();
    try {
      while (!signalled) {
        if (!timed) {
          woken.await();
        } else {
          long remainingNanos = deadlineNanos - System.nanoTime();
          if (remainingNanos <= 0) {
            return false;
          }
          woken.awaitNanos(remainingNanos);
        }
      }
      return true;
    } finally {
      mutex.unlock();
    }
  }
}
