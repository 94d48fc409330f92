package io.synod.recipes.lock;

import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;

/**
 * Asynchronous queue lock: the algorithm of {@link QueueLock}, with every step a Curator background operation and
 * every wait a watch; no thread is blocked while queued.
 *
 * <p><b>Algorithm.</b> Create the ephemeral-sequential child, list the children, and if ours is not the lowest,
 * set a watch on its predecessor only; the watch's notification lists the children again.
 *
 * <p><b>Cost.</b> As {@link QueueLock}: uncontended 2 RTTs, contended 3 RTTs to join plus 1 to 2 per wake-up,
 * release 1 RTT; but the client spends no thread per waiter, so many acquisitions can be queued at once, and the
 * next step starts the moment a reply arrives.
 *
 * <p><b>Fairness.</b> FIFO in order of creation of the queue nodes.
 *
 * <p><b>Cancellation and timeouts.</b> Cancelling the acquisition future deletes our node; if the create is still
 * in flight, the node is deleted when its reply arrives, and if that reply is lost, by its protected name. A hold
 * granted in the same instant as the cancel is released.
 *
 * <p><b>Failures.</b> As {@link QueueLock}.
 */
public final class AsyncQueueLock extends AsyncZkLock {

  AsyncQueueLock(CuratorFramework client, String lockPath, LockOptions options) {
    super(client, lockPath, options);
  }

  @Override
  AsyncAttempt newAttempt() {
    return new Attempt();
  }

  private final class Attempt extends AsyncAttempt {
    final String attemptId = UUID.randomUUID().toString();

    // Guarded by "this".
    private boolean createInFlight = true;
    private boolean strayDuplicatesHandled;
    private boolean cleanedUp;
    private String ourPath;
    private String ourName;
    private Stat ourStat;

    @Override
    void start() {
      result.whenComplete((hold, error) -> {
        if (error != null) {
          abandon();
        }
      });
      String prefixPath = ZKPaths.makePath(lockPath, QueueNodes.namePrefix(attemptId));
      Stat createdStat = new Stat();
      Background.then(Background.run(callback -> client.create()
              .storingStatIn(createdStat)
              .creatingParentContainersIfNeeded()
              .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
              .inBackground(callback)
              .forPath(prefixPath)),
          (event, error) -> onCreated(event, error, createdStat),
          this::stepFailed);
    }

    private void onCreated(CuratorEvent event, Throwable error, Stat createdStat) {
      boolean created = error == null && Background.code(event) == Code.OK;
      synchronized (this) {
        createInFlight = false;
        if (created) {
          ourPath = event.getName();
          ourName = ZKPaths.getNodeFromPath(ourPath);
          ourStat = createdStat;
        }
      }
      if (result.isDone()) {
        cleanUp(); // abandoned while the create was in flight
      } else if (!created) {
        fail(error != null ? translate("create queue node", error) : translate("create queue node", Background.code(event), null));
      } else {
        checkQueue();
      }
    }

    private void checkQueue() {
      if (result.isDone()) {
        return;
      }
      synchronized (this) {
        waiting = null;
      }
      Background.then(Background.run(callback -> client.getChildren().inBackground(callback).forPath(lockPath)),
          this::onChildren,
          this::stepFailed);
    }

    private void onChildren(CuratorEvent event, Throwable error) {
      if (result.isDone()) {
        return;
      }
      if (error != null) {
        fail(translate("list queue", error));
        return;
      }
      Code code = Background.code(event);
      if (code == Code.NONODE) {
        fail(new LockSessionLostException(lockPath, "the lock path vanished while queued; our node " + ourPath + " is gone"));
        return;
      }
      if (code != Code.OK) {
        fail(translate("list queue", code, null));
        return;
      }
      if (Sessions.currentSessionId(client) != ourStat.getEphemeralOwner()) {
        fail(new LockSessionLostException(lockPath, "session changed while queued; our node " + ourPath + " is gone"));
        return;
      }
      QueueNodes.View queue = QueueNodes.view(event.getChildren(), ourName, attemptId);
      for (String stray : queue.strayDuplicates) {
        SyncSupport.logIfFailed(NodeReaper.deleteOwnedNode(client, lockPath, ZKPaths.makePath(lockPath, stray), ourStat.getEphemeralOwner(), NodeReaper.ANY_CZXID), lockPath);
      }
      synchronized (this) {
        strayDuplicatesHandled = true;
      }
      if (!queue.containsOurs()) {
        fail(new LockSessionLostException(lockPath, "our queue node " + ourPath + " disappeared while queued"));
      } else if (queue.oursIsFirst()) {
        Hold hold = grant(this, ourPath, ourStat);
        if (hold == null) {
          fail(new LockCancelledException(lockPath, "lock closed while acquiring", null));
        } else if (!result.complete(hold)) {
          releaseOrphanedGrant(hold); // cancelled in the same instant
        }
      } else {
        watchPredecessor(ZKPaths.makePath(lockPath, queue.predecessor()));
      }
    }

    private void watchPredecessor(String predecessorPath) {
      WaitTicket ticket = new WaitTicket(this::checkQueue);
      synchronized (this) {
        waiting = ticket;
      }
      Background.then(Background.run(callback -> client.checkExists().usingWatcher(ticket).inBackground(callback).forPath(predecessorPath)),
          (event, error) -> {
            if (error != null) {
              fail(translate("watch predecessor", error));
            } else if (Background.code(event) == Code.NONODE || (Background.code(event) == Code.OK && event.getStat() == null)) {
              ticket.fire(); // gone already: look again now
            } else if (Background.code(event) != Code.OK) {
              fail(translate("watch predecessor", Background.code(event), null));
            }
          },
          this::stepFailed);
    }

    /** Removes what this attempt created; runs once, after the create's outcome is known. */
    @Override
    void cleanUp() {
      String nodeToDelete;
      synchronized (this) {
        if (createInFlight || cleanedUp) {
          return;
        }
        cleanedUp = true;
        nodeToDelete = strayDuplicatesHandled ? ourPath : null;
      }
      if (nodeToDelete != null) {
        SyncSupport.logIfFailed(NodeReaper.deleteOwnedNode(client, lockPath, nodeToDelete, ourStat.getEphemeralOwner(), NodeReaper.ANY_CZXID), lockPath);
      } else {
        // The create failed, or succeeded without our having listed the queue: find every node of this attempt.
        SyncSupport.logIfFailed(NodeReaper.reapQueueAttempt(client, lockPath, attemptId), lockPath);
      }
    }
  }
}
