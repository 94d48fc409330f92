package io.synod.recipes.lock;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * One wait of an asynchronous acquisition: a one-shot watch whose first relevant notification runs the next step,
 * exactly once, however many sources fire (the watch itself, a session event, close, or the read that found the
 * node already gone). Connection-state notifications (Disconnected, SyncConnected) are not relevant: the watch
 * survives them within the session.
 */
final class WaitTicket implements Watcher {

  private final AtomicBoolean fired = new AtomicBoolean();
  private final Runnable next;

  WaitTicket(Runnable next) {
    this.next = next;
  }

  @Override
  public void process(WatchedEvent event) {
    if (event.getType() != Event.EventType.None || event.getState() == Event.KeeperState.Expired
        || event.getState() == Event.KeeperState.Closed) {
      fire();
    }
  }

  void fire() {
    if (fired.compareAndSet(false, true)) {
      next.run();
    }
  }
}
