package io.synod.recipes.lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The {@link LockBackendContract} on a real ZooKeeper server, each backend a Curator client of its own. */
class ZooKeeperLockBackendTest extends LockBackendContract {

    private ZkTestSupport zk;

    @BeforeEach
    void start() throws Exception {
        zk = new ZkTestSupport();
    }

    @AfterEach
    void stop() throws Exception {
        zk.close();
    }

    @Override
    LockBackend newBackend() throws Exception {
        return new ZooKeeperLockBackend(zk.newClient());
    }

    @Override
    void expireSession(LockBackend backend) throws Exception {
        zk.expireSession(((ZooKeeperLockBackend) backend).client());
    }
}
