package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The lock path is a container, and ZooKeeper reaps empty containers every 10 ms (the system property
 * {@code znode.container.checkIntervalMs}, set as Curator's own lock tests set it). Between a release (the container
 * is empty) and the next create, the container may be reaped: Curator then creates it again, and the create may
 * still find it gone. Every acquisition must nevertheless succeed, under contention, with every strategy.
 */
class ContainerReapingTest {

    private static final String CHECK_INTERVAL_PROPERTY = "znode.container.checkIntervalMs";
    private static final int CLIENTS = 4;
    private static final int ROUNDS_PER_CLIENT = 25;

    private static ZkTestSupport zk;
    private static final List<CuratorFramework> clients = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        String before = System.getProperty(CHECK_INTERVAL_PROPERTY);
        System.setProperty(CHECK_INTERVAL_PROPERTY, "10");
        try {
            zk = new ZkTestSupport(); // the server's container manager reads the property when it starts
        } finally {
            if (before == null) {
                System.clearProperty(CHECK_INTERVAL_PROPERTY);
            } else {
                System.setProperty(CHECK_INTERVAL_PROPERTY, before);
            }
        }
        clients.addAll(zk.newClients(CLIENTS));
    }

    @AfterAll
    static void stop() throws Exception {
        zk.close();
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void acquisitionsNeverFailWhileContainersAreReapedAggressively(Variant kind) throws Exception {
        String path = "/reaped/" + kind + "/lock";
        FencedResource resource = new FencedResource();
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (CuratorFramework client : clients) {
                runs.add(threads.submit(() -> {
                    try (Locks.Any lock = Locks.create(kind, client, path)) {
                        for (int round = 0; round < ROUNDS_PER_CLIENT; round++) {
                            LockHandle hold = lock.acquire(); // any LockCoordinationException (NONODE) fails the test
                            resource.enter(hold.fencingToken());
                            resource.exit();
                            lock.release();
                            if (round % 5 == 0) {
                                Thread.sleep(25); // let the empty container be reaped now and then
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get(ZkTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(List.of(), resource.violations());
        assertEquals(CLIENTS * ROUNDS_PER_CLIENT, resource.entryTokens().size());
    }
}
