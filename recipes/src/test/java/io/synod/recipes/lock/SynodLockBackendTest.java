package io.synod.recipes.lock;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The {@link LockBackendContract} on a real Synod cluster (3 in-process servers, 2 groups, a ZooKeeper test server),
 * each backend with its own SDK client and session.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class SynodLockBackendTest extends LockBackendContract {

    private SynodTestCluster synod;

    @BeforeAll
    void start() throws Exception {
        synod = new SynodTestCluster(3, 2);
    }

    @AfterAll
    void stop() throws Exception {
        if (synod != null) {
            synod.close();
        }
    }

    @Override
    LockBackend newBackend() {
        return synod.newBackend(Duration.ofSeconds(6));
    }

    /** Revokes the backend's session from another client, as the leader's expiry would end it. */
    @Override
    void expireSession(LockBackend backend) throws Exception {
        synod.newClient().revokeSession(backend.sessionId()).join();
    }
}
