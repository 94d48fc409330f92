package io.synod.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * The negative control of the contention tests' bound: a lock that never grants (another session holds it
 * throughout) ends a {@link ContendingClient}'s run at its deadline with a message saying what its tries ended with,
 * instead of hanging the test or passing.
 */
class ContendingClientTest {

    @Test
    void aLockThatNeverGrantsEndsTheRunAtItsDeadlineSayingWhatHappened() throws Exception {
        try (ZkTestSupport zk = new ZkTestSupport()) {
            CuratorFramework holderClient = zk.newClient();
            CuratorFramework waiterClient = zk.newClient();
            try (Locks.Any holder = Locks.create(LockKind.SYNC_TAS, holderClient, "/never");
                    Locks.Any waiter = Locks.create(LockKind.SYNC_TAS, waiterClient, "/never")) {
                holder.acquire();
                FencedResource resource = new FencedResource();
                ContendingClient client = new ContendingClient("waiter", waiter, Duration.ofMillis(300), Duration.ofSeconds(2),
                        resource, new AtomicInteger());
                AssertionError failure = assertThrows(AssertionError.class, () -> client.run(1, () -> true));
                String message = failure.getMessage();
                assertTrue(message.startsWith("waiter: 0 of 1 rounds after the disruption (0 in all) after "), message);
                assertTrue(message.contains("outcomes {timed out="), message);
                assertTrue(message.endsWith("last failure: none"), message);
                assertEquals(0, resource.entryTokens().size());
                holder.release();
            }
        }
    }
}
