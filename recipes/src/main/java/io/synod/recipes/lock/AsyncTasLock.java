package io.synod.recipes.lock;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;

/**
 * Asynchronous test-and-set lock: the algorithm of {@link TasLock}, with every step a Curator background
 * operation and every wait a watch; no thread is blocked while waiting.
 *
 * <p><b>Algorithm.</b> Create {@code <lockPath>/holder}; on NodeExists read it with a watch (adopting it if it is
 * this attempt's own node, whose create reply was lost); when the watch reports the deletion, create again.
 *
 * <p><b>Cost.</b> As {@link TasLock}: uncontended 1 RTT, 2 RTTs per contended try, herd effect on release,
 * release 1 RTT. Without a blocked thread the retry follows the deletion notice immediately, which makes this the
 * cheapest of the four at high RTT when contention is low.
 *
 * <p><b>Fairness.</b> None.
 *
 * <p><b>Cancellation and timeouts.</b> Cancelling the acquisition future gives up; if a create of ours may have
 * succeeded, the node is deleted only after checking that it carries this attempt's id in this session. A hold
 * granted in the same instant as the cancel is released (exactly once: the fixed node name admits only one
 * delete per hold).
 *
 * <p><b>Failures.</b> As {@link TasLock}.
 */
public final class AsyncTasLock extends AsyncZkLock {

  private final String holderPath;

  AsyncTasLock(CuratorFramework client, String lockPath, LockOptions options) {
    super(client, lockPath, options);
    this.holderPath = ZKPaths.makePath(lockPath, TasLock.HOLDER_NODE);
  }

  @Override
  AsyncAttempt newAttempt() {
    return new Attempt();
  }

  private final class Attempt extends AsyncAttempt {
    final byte[] attemptData = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);

    // Guarded by "this".
    private boolean createInFlight;
    private boolean createIssued;
    private boolean cleanedUp;
    private Hold grantedHold;

    @Override
    void start() {
      result.whenComplete((hold, error) -> {
        if (error != null) {
          abandon();
        }
      });
      tryCreate();
    }

    private void tryCreate() {
      synchronized (this) {
        if (result.isDone()) {
          return;
        }
        waiting = null;
        createInFlight = true;
        createIssued = true;
      }
      Stat createdStat = new Stat();
      Background.then(Background.run(callback -> client.create()
              .storingStatIn(createdStat)
              .creatingParentContainersIfNeeded()
              .withMode(CreateMode.EPHEMERAL)
              .inBackground(callback)
              .forPath(holderPath, attemptData)),
          (event, error) -> onCreated(event, error, createdStat),
          this::stepFailed);
    }

    private void onCreated(CuratorEvent event, Throwable error, Stat createdStat) {
      synchronized (this) {
        createInFlight = false;
      }
      if (result.isDone()) {
        cleanUp(); // abandoned while the create was in flight
      } else if (error != null) {
        fail(translate("create holder node", error));
      } else if (Background.code(event) == Code.OK) {
        grantOrRelease(createdStat);
      } else if (Background.code(event) == Code.NODEEXISTS) {
        readHolder();
      } else {
        fail(translate("create holder node", Background.code(event), null));
      }
    }

    private void readHolder() {
      WaitTicket ticket = new WaitTicket(this::tryCreate);
      synchronized (this) {
        waiting = ticket;
      }
      Background.then(Background.run(callback -> client.getData().usingWatcher(ticket).inBackground(callback).forPath(holderPath)),
          (event, error) -> {
            if (result.isDone()) {
              return;
            }
            if (error != null) {
              fail(translate("read holder node", error));
              return;
            }
            Code code = Background.code(event);
            if (code == Code.NONODE) {
              ticket.fire(); // released meanwhile: try again now
            } else if (code != Code.OK) {
              fail(translate("read holder node", code, null));
            } else if (NodeReaper.isOwnedBy(event.getStat(), Sessions.currentSessionId(client)) && Arrays.equals(event.getData(), attemptData)) {
              grantOrRelease(event.getStat()); // our own create succeeded; its reply was lost and Curator retried
            }
            // Otherwise the holder node is someone else's: the watch calls tryCreate when it goes.
          },
          this::stepFailed);
    }

    private void grantOrRelease(Stat holderStat) {
      Hold hold;
      synchronized (this) {
        hold = grant(this, holderPath, holderStat);
        grantedHold = hold;
      }
      if (hold == null) {
        fail(new LockCancelledException(lockPath, "lock closed while acquiring", null));
      } else if (!result.complete(hold)) {
        releaseOrphanedGrant(hold); // cancelled in the same instant
      }
    }

    /**
     * Removes the node this attempt may have created; runs once, after the last create's outcome is known. Any
     * create may have succeeded unseen (a NodeExists can answer Curator's retry of our own successful create), so
     * the reaper reads the node and deletes it only if it carries this attempt's id in this session. A granted
     * hold is not touched here: {@link #grantOrRelease} releases it, and a fixed-name node must be deleted once.
     */
    @Override
    void cleanUp() {
      synchronized (this) {
        if (createInFlight || cleanedUp || grantedHold != null || !createIssued) {
          return;
        }
        cleanedUp = true;
      }
      SyncSupport.logIfFailed(NodeReaper.reapTasAttempt(client, lockPath, holderPath, attemptData), lockPath);
    }
  }
}
