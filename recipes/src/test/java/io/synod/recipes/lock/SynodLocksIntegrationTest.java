package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.synod.client.SynodClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The four locks on a real Synod cluster (3 in-process servers, one group, a ZooKeeper test server): eight clients,
 * each with its own SDK client and session, contend for one lock guarding a {@link FencedResource} (no two holders
 * inside at once, tokens strictly increasing in entry order, stale tokens rejected) — undisturbed, and while the
 * leader of the session group is killed under them; and a holder whose client falls silent loses its hold before its
 * session expires, after which the next holder's token fences the old one out.
 */
@Timeout(600)
class SynodLocksIntegrationTest {

    private static final int CLIENTS = 8;
    private static final int ROUNDS_PER_CLIENT = 4;
    private static final Duration TTL = Duration.ofSeconds(6);

    /**
     * The cluster of the tests that leave every server running (each test has lock paths of its own and closes its
     * clients and sessions after itself); a test that kills a server starts a cluster of its own.
     */
    private static SynodTestCluster shared;

    @BeforeAll
    static void startSharedCluster() throws Exception {
        shared = new SynodTestCluster(3, 1);
    }

    @AfterAll
    static void stopSharedCluster() throws Exception {
        if (shared != null) {
            shared.close();
        }
    }

    @AfterEach
    void closeSharedClients() {
        shared.closeClients();
    }

    @FunctionalInterface
    private interface Disruption {
        void run() throws Exception;
    }

    @ParameterizedTest
    @EnumSource(value = Variant.class, names = {"SYNC_QUEUE", "ASYNC_QUEUE", "SYNC_TAS", "ASYNC_TAS"})
    void eightClientsContendWithoutADoubleHolder(Variant kind) throws Exception {
        contendThrough(kind, shared, () -> { });
    }

    @ParameterizedTest
    @EnumSource(value = Variant.class, names = {"SYNC_QUEUE", "ASYNC_QUEUE", "SYNC_TAS", "ASYNC_TAS"})
    void exclusionSurvivesKillingTheLeaderDuringContention(Variant kind) throws Exception {
        try (SynodTestCluster synod = new SynodTestCluster(3, 1)) {
            contendThrough(kind, synod, () -> synod.cluster.crash(synod.sessionGroupLeader()));
        }
    }

    private static void contendThrough(Variant kind, SynodTestCluster synod, Disruption disruption) throws Exception {
        String path = "/contention/" + kind;
        List<SynodLockBackend> backends = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            backends.add(synod.newBackend(TTL));
        }
        FencedResource resource = new FencedResource();
        AtomicInteger grants = new AtomicInteger();
        AtomicBoolean disruptionOver = new AtomicBoolean();
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
        int rounds;
        try {
            List<Future<Integer>> runs = new ArrayList<>();
            for (SynodLockBackend backend : backends) {
                String name = "client " + runs.size();
                runs.add(threads.submit(() -> {
                    try (Locks.Any lock = Locks.create(kind, backend, path)) {
                        return new ContendingClient(name, lock, Duration.ofSeconds(10), resource, grants).run(ROUNDS_PER_CLIENT, disruptionOver::get);
                    }
                }));
            }
            ZkTestSupport.eventually("contention under way", () -> grants.get() >= CLIENTS);
            disruption.run();
            disruptionOver.set(true);
            rounds = ContendingClient.awaitAll(runs);
        } finally {
            threads.shutdownNow();
        }
        assertEquals(List.of(), resource.violations());
        assertEquals(rounds, resource.entryTokens().size());
        SynodClient observer = backends.get(0).client();
        ZkTestSupport.eventually("no key left behind", () -> {
            try {
                return observer.listKeys(path + "/", 10).join().keys().isEmpty();
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    @ParameterizedTest
    @EnumSource(value = Variant.class, names = {"SYNC_QUEUE", "ASYNC_QUEUE", "SYNC_TAS", "ASYNC_TAS"})
    void aSilentHoldersHoldEndsBeforeItsSessionExpiresAndItsTokenIsFencedOut(Variant kind) throws Exception {
        String path = "/expiry/" + kind;
        FencedResource resource = new FencedResource();
        SynodClient silentClient = shared.newClient();
        SynodLockBackend silent = new SynodLockBackend(silentClient, Duration.ofSeconds(3));
        SynodLockBackend next = shared.newBackend(Duration.ofSeconds(3));
        try (Locks.Any first = Locks.create(kind, silent, path); Locks.Any second = Locks.create(kind, next, path)) {
            LockHandle old = first.acquire(Duration.ofSeconds(30)).orElseThrow();
            assertTrue(resource.write(old.fencingToken()));
            // The instants are taken by stages derived from the two futures, and read from those stages: a
            // callback registered with thenRun may still be running when get() on its source returns.
            CompletableFuture<Long> lostAt = old.lost().toCompletableFuture().thenApply(r -> System.nanoTime());
            Locks.InBackground waiting = Locks.acquireInBackground(second, "next holder");
            CompletableFuture<Long> grantedAt = waiting.result().thenApply(h -> System.nanoTime());
            silentClient.close(); // keep-alives stop; the servers are not told
            LockLossReason reason = old.lost().toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertFalse(old.isValid(), "the silent holder knows it lost the lock (" + reason + ")");
            LockHandle fresh = waiting.result().get(60, TimeUnit.SECONDS);
            assertTrue(lostAt.get(5, TimeUnit.SECONDS) < grantedAt.get(5, TimeUnit.SECONDS),
                    "no double holder: the old hold ended before the new one began");
            assertTrue(fresh.fencingToken() > old.fencingToken(), "the later holder's token is larger");
            assertTrue(resource.write(fresh.fencingToken()));
            assertFalse(resource.write(old.fencingToken()), "the stale token is rejected");
            second.release();
        } finally {
            silent.close();
        }
    }

    @Test
    void theAdaptiveLockExcludesOnSynodToo() throws Exception {
        FencedResource resource = new FencedResource();
        List<AdaptiveLock> locks = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                AdaptiveLock lock = SynodLocks.adaptiveLock(shared.newBackend(TTL), "/adaptive", LockOptions.defaults());
                locks.add(lock);
                runs.add(threads.submit(() -> {
                    Locks.fencedRounds(lock, resource, 5);
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get(ZkTestSupport.WAIT.toSeconds() * 2, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
            locks.forEach(AdaptiveLock::close);
        }
        assertEquals(List.of(), resource.violations());
        assertEquals(20, resource.entryTokens().size());
    }
}
