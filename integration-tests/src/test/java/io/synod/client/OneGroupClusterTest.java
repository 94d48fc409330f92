package io.synod.client;

import io.synod.server.node.LocalCluster;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;

/**
 * The harness of the lease cluster tests: a {@link RealCluster} of 3 nodes and one group, started by
 * {@link #start} and torn down after each test.
 */
abstract class OneGroupClusterTest {
    private RealCluster real;
    TestingServer zk;
    LocalCluster cluster;

    /** Starts ZooKeeper and cluster {@code name} with the server settings {@code extra}, and waits for a leader. */
    void start(String name, Map<String, String> extra) throws Exception {
        real = RealCluster.start(name, 3, 1, extra);
        zk = real.zk;
        cluster = real.cluster;
    }

    /** Takes over a cluster another test started (of any size), so {@link #stop} closes it. */
    void adopt(RealCluster started) {
        real = started;
        zk = started.zk;
        cluster = started.cluster;
    }

    @AfterEach
    void stop() throws Exception {
        if (real != null) {
            real.close();
        }
    }
}
