package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Eight sessions contend while the server is stopped and restarted underneath them, so that creates, lists,
 * watches and deletes fail or lose their replies at arbitrary points. Acquisitions may fail (typed); what must
 * hold is exclusion with increasing tokens, every client finishing its rounds, and no node left behind.
 */
class ServerRestartTest {

  private static final int CLIENTS = 8;
  private static final int ROUNDS_PER_CLIENT = 5;
  /** Bound on tries per client, so that a lock that kept failing ends the test instead of hanging it. */
  private static final int MAX_TRIES_PER_CLIENT = 200;

  private ZkTestSupport zk;

  @BeforeEach
  void start() throws Exception {
    zk = new ZkTestSupport();
  }

  @AfterEach
  void stop() throws Exception {
    zk.close();
  }

  @ParameterizedTest
  @EnumSource(LockKind.class)
  void exclusionSurvivesAServerRestartUnderContention(LockKind kind) throws Exception {
    String path = "/restart/" + kind;
    List<CuratorFramework> clients = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      clients.add(zk.newClient());
    }
    FencedResource resource = new FencedResource();
    AtomicInteger grants = new AtomicInteger();
    AtomicInteger failedTries = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (CuratorFramework client : clients) {
        runs.add(threads.submit(() -> {
          try (Locks.Any lock = Locks.create(kind, client, path)) {
            int done = 0;
            for (int tries = 0; done < ROUNDS_PER_CLIENT; tries++) {
              if (tries == MAX_TRIES_PER_CLIENT) {
                throw new AssertionError("no progress after " + tries + " tries");
              }
              Optional<LockHandle> hold;
              try {
                hold = lock.acquire(Duration.ofSeconds(5));
              } catch (LockException e) {
                failedTries.incrementAndGet();
                continue;
              }
              if (hold.isEmpty()) {
                continue;
              }
              grants.incrementAndGet();
              resource.enter(hold.get().fencingToken());
              Thread.sleep(2);
              resource.exit();
              try {
                lock.release();
              } catch (LockException e) {
                failedTries.incrementAndGet(); // not confirmed in time; the delete goes on in the background
              }
              done++;
            }
          }
          return null;
        }));
      }
      // Let contention build up, then take the server away under it and bring it back.
      ZkTestSupport.eventually("contention under way", () -> grants.get() >= CLIENTS);
      zk.server.stop();
      Thread.sleep(500);
      zk.server.restart();
      for (Future<?> run : runs) {
        run.get(2 * ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertEquals(List.of(), resource.violations());
    CuratorFramework observer = zk.newClient();
    ZkTestSupport.eventually("no node left behind", () -> {
      try {
        return observer.getChildren().forPath(path).isEmpty();
      } catch (Exception e) {
        return false;
      }
    });
  }
}
