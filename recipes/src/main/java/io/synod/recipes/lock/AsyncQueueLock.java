package io.synod.recipes.lock;

import java.util.Optional;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Asynchronous queue lock. No thread is blocked while queued. How it waits is its {@link LockStrategy}:
 *
 * <ul>
 *   <li><b>WATCH</b> (default): the algorithm of {@link QueueLock}, every step a Curator background operation and
 *       every wait a watch on the predecessor.</li>
 *   <li><b>POLL</b>: the seed paper's asynchronous queue lock ("The Cost of Consensus", §III–IV): the create of our
 *       sequential node goes out together with the first children listing, and listings follow every interval (at
 *       most {@code maxInFlight} outstanding). The lock is held when the create has returned and the newest listing
 *       issued after the create shows our node first. Requests of one session execute in order, so such a listing
 *       reflects our node; uncontended this costs one RTT, not two.</li>
 *   <li><b>RETRY</b>: as POLL with one listing in flight, the next sent as soon as a listing shows us not first
 *       (plus the back-off).</li>
 * </ul>
 * The paper's option of switching from polling to a predecessor watch after one RTT is not implemented.
 *
 * <p><b>WATCH algorithm.</b> Create the ephemeral-sequential child, list the children, and if ours is not the lowest,
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
    return strategy().kind() == LockStrategy.Kind.WATCH ? new Attempt() : new ProbeAttempt();
  }

  /** The RETRY and POLL strategies (see the class comment). */
  private final class ProbeAttempt extends ProbingAttempt {
    final String serverLockPath = RawOps.serverPath(client, lockPath);

    // Guarded by "this".
    private String attemptId = UUID.randomUUID().toString();
    private boolean createInFlight;
    /** Issue order of requests on the handle: a listing proves something about our create only if issued after it. */
    private long issued;
    private long createSeq;
    /** The session in which our create's outcome is unknown (connection loss), or 0. */
    private long uncertainSession;
    private boolean recovering;
    private int listingsInFlight;
    private int requeues;
    private String ourPath;
    private String ourName;
    private Stat ourStat;
    private boolean cleanedUp;

    @Override
    void begin() {
      synchronized (this) {
        issueCreate();
        issueListing(); // in parallel with the create: answered after it, so it already tells whether we are first
      }
    }

    @Override
    void tick() {
      synchronized (this) {
        issueListing();
      }
    }

    private void nextListing() {
      afterNegative(() -> {
        synchronized (this) {
          issueListing();
        }
      });
    }

    /** Guarded by "this"; requests are issued under the lock so that their sequence numbers follow issue order. */
    private void issueCreate() {
      if (result.isDone() || createInFlight) {
        return;
      }
      ZooKeeper handle = handleOrNull();
      createInFlight = true;
      createSeq = ++issued;
      if (handle == null) {
        handle(java.util.concurrent.CompletableFuture.completedFuture(RawOps.Reply.of(Code.CONNECTIONLOSS, 0)), this::onCreated);
      } else {
        String prefix = RawOps.serverPath(client, ZKPaths.makePath(lockPath, QueueNodes.namePrefix(attemptId)));
        handle(RawOps.create(handle, prefix, new byte[0], CreateMode.EPHEMERAL_SEQUENTIAL), this::onCreated);
      }
    }

    /** Guarded by "this". */
    private void issueListing() {
      if (result.isDone() || listingsInFlight >= strategy.maxInFlight() || pacedOut()) {
        return;
      }
      ZooKeeper handle = handleOrNull();
      if (handle == null) {
        return; // the next tick or reply tries again
      }
      listingsInFlight++;
      long seq = ++issued;
      handle(RawOps.getChildren(handle, serverLockPath), reply -> onListing(reply, seq));
    }

    private void onCreated(RawOps.Reply reply) {
      synchronized (this) {
        createInFlight = false;
        if (reply.code() == Code.OK) {
          ourName = ZKPaths.getNodeFromPath(reply.name());
          ourPath = ZKPaths.makePath(lockPath, ourName);
          ourStat = reply.stat();
        }
      }
      try {
        switch (reply.code()) {
          case OK -> {
            connectionWorks();
            parentFound();
          }
          case NONODE -> recreateParentThen(() -> {
            synchronized (this) {
              issueCreate();
            }
          });
          case CONNECTIONLOSS, OPERATIONTIMEOUT -> {
            if (reply.sessionId() == 0) {
              // Never sent (no handle at the time): nothing to find out, send it again.
              onConnectionLossRedo("create queue node", () -> {
                synchronized (this) {
                  issueCreate();
                }
              });
            } else {
              synchronized (this) {
                uncertainSession = reply.sessionId();
              }
              // The next listing issued after the create, in the same session, tells whether the create happened.
              onConnectionLoss("create queue node", this::nextListing);
            }
          }
          case SESSIONEXPIRED, SESSIONMOVED -> onConnectionLossRedo("create queue node", () -> {
            synchronized (this) {
              issueCreate(); // we had no node yet: nothing lost, create in the next session
            }
          });
          default -> fail(translate("create queue node", reply.code(), null));
        }
      } finally {
        maybeCleanUp();
      }
    }

    private void onListing(RawOps.Reply reply, long seq) {
      synchronized (this) {
        listingsInFlight--;
      }
      try {
        if (result.isDone()) {
          return;
        }
        switch (reply.code()) {
          case OK -> {
            connectionWorks();
            onChildren(reply, seq);
          }
          case NONODE -> {
            if (placeWasIn(reply.sessionId(), seq)) {
              lostPlace("the lock path vanished while queued");
            } else {
              nextListing(); // our create makes the path
            }
          }
          case CONNECTIONLOSS, OPERATIONTIMEOUT -> onConnectionLoss("list queue", this::nextListing);
          case SESSIONEXPIRED, SESSIONMOVED -> {
            if (placeWasIn(reply.sessionId(), seq)) {
              lostPlace("session expired while queued");
            } else {
              onConnectionLoss("list queue", this::nextListing);
            }
          }
          default -> fail(translate("list queue", reply.code(), null));
        }
      } finally {
        maybeCleanUp();
      }
    }

    /** Whether we had a node in that session when the request was issued. */
    private synchronized boolean placeWasIn(long session, long seq) {
      return ourName != null && ourStat.getEphemeralOwner() == session && seq > createSeq;
    }

    private void onChildren(RawOps.Reply reply, long seq) {
      String name;
      String path;
      Stat stat;
      String id;
      String prefix;
      long ourSession;
      boolean resolveUncertain;
      synchronized (this) {
        name = ourName;
        path = ourPath;
        stat = ourStat;
        id = attemptId;
        prefix = QueueNodes.namePrefix(attemptId);
        ourSession = name == null ? 0 : ourStat.getEphemeralOwner();
        resolveUncertain = name == null && !createInFlight && !recovering && seq > createSeq && uncertainSession != 0;
        if (resolveUncertain && uncertainSession != reply.sessionId()) {
          uncertainSession = 0; // that session is over, and any node it made with it
          issueCreate();
          return;
        }
      }
      if (name == null) {
        if (resolveUncertain) {
          Optional<String> made = reply.children().stream().filter(child -> child.startsWith(prefix)).findFirst();
          synchronized (this) {
            if (made.isEmpty()) {
              uncertainSession = 0;
              issueCreate(); // the lost create never executed
            } else {
              recovering = true;
            }
          }
          made.ifPresent(this::adopt);
        }
        nextListing();
        return;
      }
      if (reply.sessionId() != ourSession) {
        lostPlace("session changed while queued; our node " + path + " is gone");
        return;
      }
      if (seq < createSeq) {
        nextListing(); // issued before our create: proves nothing
        return;
      }
      QueueNodes.View queue = QueueNodes.view(reply.children(), name, id);
      for (String stray : queue.strayDuplicates) {
        SyncSupport.logIfFailed(NodeReaper.deleteOwnedNode(client, lockPath, ZKPaths.makePath(lockPath, stray), ourSession, NodeReaper.ANY_CZXID), lockPath);
      }
      if (!queue.containsOurs()) {
        lostPlace("our queue node " + path + " disappeared while queued");
      } else if (queue.oursIsFirst()) {
        grantAndComplete(path, stat);
      } else {
        nextListing();
      }
    }

    /** Our create executed though its reply was lost: learn the node's stat (its czxid is the fencing token). */
    private void adopt(String child) {
      ZooKeeper handle = handleOrNull();
      if (handle == null) {
        synchronized (this) {
          recovering = false; // still uncertain: a later listing tries again
        }
        return;
      }
      String path = ZKPaths.makePath(lockPath, child);
      handle(RawOps.exists(handle, RawOps.serverPath(client, path)), reply -> {
        synchronized (this) {
          recovering = false;
          if (reply.code() == Code.OK && reply.stat() != null && reply.stat().getEphemeralOwner() == reply.sessionId()) {
            uncertainSession = 0;
            ourName = child;
            ourPath = path;
            ourStat = reply.stat();
          } else if (reply.code() == Code.NONODE) {
            uncertainSession = 0;
            issueCreate();
          }
          // Otherwise still uncertain: the next listing asks again.
        }
        maybeCleanUp();
      });
    }

    /**
     * Our place in the queue is gone (session ended, node deleted). By default join again at the end; with
     * {@code requeueOnSessionLoss(false)}, or after {@link LockOptions#MAX_REQUEUES}, fail.
     */
    private void lostPlace(String why) {
      String oldPath;
      long oldSession;
      synchronized (this) {
        if (!mayRequeue(++requeues)) {
          oldPath = null;
          oldSession = 0;
        } else {
          oldPath = ourPath;
          oldSession = ourStat.getEphemeralOwner();
          ourName = null;
          ourPath = null;
          ourStat = null;
          attemptId = UUID.randomUUID().toString();
          issueCreate();
        }
      }
      if (oldPath == null) {
        fail(new LockSessionLostException(lockPath, why));
      } else {
        deleteLostPlace(oldPath, oldSession);
        nextListing();
      }
    }

    @Override
    void cleanUp() {
      maybeCleanUp();
    }

    /** Once over and the create's outcome known: delete our node, or find it by its protected name. */
    private void maybeCleanUp() {
      String path;
      long session;
      String reapId;
      synchronized (this) {
        if (!result.isDone() || createInFlight || recovering || cleanedUp || grantedHold != null) {
          return;
        }
        cleanedUp = true;
        path = ourPath;
        session = ourStat == null ? 0 : ourStat.getEphemeralOwner();
        reapId = uncertainSession != 0 || ourPath == null ? attemptId : null;
      }
      if (path != null) {
        SyncSupport.logIfFailed(NodeReaper.deleteOwnedNode(client, lockPath, path, session, NodeReaper.ANY_CZXID), lockPath);
      }
      if (reapId != null) {
        SyncSupport.logIfFailed(NodeReaper.reapQueueAttempt(client, lockPath, reapId), lockPath);
      }
    }
  }

  private final class Attempt extends AsyncAttempt {
    // Guarded by "this".
    private String attemptId = UUID.randomUUID().toString();
    private boolean createInFlight = true;
    private boolean strayDuplicatesHandled;
    private boolean cleanedUp;
    private String ourPath;
    private String ourName;
    private Stat ourStat;
    private int requeues;
    private int missingParents;

    @Override
    void start() {
      result.whenComplete((hold, error) -> {
        if (error != null) {
          abandon();
        }
      });
      createNode();
    }

    private void createNode() {
      String attemptId;
      synchronized (this) {
        createInFlight = true;
        attemptId = this.attemptId;
      }
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
      } else if (error == null && Background.code(event) == Code.NONODE && ++missingParents <= MAX_MISSING_PARENT) {
        createNode(); // the container parent was reaped between its creation and our create: again
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
      if (code == Code.NONODE || code == Code.SESSIONEXPIRED) {
        lostPlace("the lock path vanished while queued; our node " + ourPath + " is gone");
        return;
      }
      if (code != Code.OK) {
        fail(translate("list queue", code, null));
        return;
      }
      if (Sessions.currentSessionId(client) != ourStat.getEphemeralOwner()) {
        lostPlace("session changed while queued; our node " + ourPath + " is gone");
        return;
      }
      QueueNodes.View queue = QueueNodes.view(event.getChildren(), ourName, currentAttemptId());
      for (String stray : queue.strayDuplicates) {
        SyncSupport.logIfFailed(NodeReaper.deleteOwnedNode(client, lockPath, ZKPaths.makePath(lockPath, stray), ourStat.getEphemeralOwner(), NodeReaper.ANY_CZXID), lockPath);
      }
      synchronized (this) {
        strayDuplicatesHandled = true;
      }
      if (!queue.containsOurs()) {
        lostPlace("our queue node " + ourPath + " disappeared while queued");
      } else if (queue.oursIsFirst()) {
        grantAndComplete(ourPath, ourStat);
      } else {
        watchPredecessor(ZKPaths.makePath(lockPath, queue.predecessor()));
      }
    }

    private synchronized String currentAttemptId() {
      return attemptId;
    }

    /** Our place is gone: join the queue again at the end (default), or fail fast (see {@link LockOptions}). */
    private void lostPlace(String why) {
      String oldPath;
      long oldSession;
      synchronized (this) {
        if (!mayRequeue(++requeues)) {
          oldPath = null;
          oldSession = 0;
        } else {
          oldPath = ourPath;
          oldSession = ourStat.getEphemeralOwner();
          ourPath = null;
          ourName = null;
          ourStat = null;
          strayDuplicatesHandled = false;
          attemptId = UUID.randomUUID().toString();
        }
      }
      if (oldPath == null) {
        fail(new LockSessionLostException(lockPath, why));
        return;
      }
      deleteLostPlace(oldPath, oldSession);
      createNode();
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
        SyncSupport.logIfFailed(NodeReaper.reapQueueAttempt(client, lockPath, currentAttemptId()), lockPath);
      }
    }
  }
}
