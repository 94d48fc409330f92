package io.synod.recipes.lock;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * A test class whose tests share one ZooKeeper server instead of starting one each: every test uses lock paths of
 * its own and makes its clients with {@code zk}, which are closed after it; a test that stops the server restarts it
 * before it ends, in a {@code finally}.
 */
abstract class SharedServerTest {

    static ZkTestSupport zk;

    @BeforeAll
    static void startSharedServer() throws Exception {
        zk = new ZkTestSupport();
    }

    @AfterAll
    static void stopSharedServer() throws Exception {
        zk.close();
    }

    @AfterEach
    void closeTestClients() {
        zk.closeClients();
    }
}
