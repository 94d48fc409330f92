package io.synod.coordination;

import static io.synod.coordination.ShardMapTest.assertMessage;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CuratorCoordinationTest {

    @Test
    void unreachableZooKeeperAndBadArgumentsFailWithOneLine() throws Exception {
        int closedPort;
        try (ServerSocket reserve = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = reserve.getLocalPort();
        }
        CoordinationOptions quick = new CoordinationOptions(Duration.ofMillis(2000), Duration.ofMillis(500),
                Duration.ofMillis(600), Duration.ofMillis(50), Duration.ZERO, 0);
        assertMessage(() -> CuratorCoordination.connect("127.0.0.1:" + closedPort, "c", quick),
                "cannot reach ZooKeeper at 127.0.0.1:" + closedPort + " within 500 ms");
        assertMessage(() -> CuratorCoordination.connect("127.0.0.1:1", "bad/name", quick), "cluster name may hold only");
        assertMessage(() -> CuratorCoordination.connect(" ", "c", quick), "connect string must not be empty");
        assertMessage(() -> CuratorCoordination.connect("127.0.0.1:notaport", "c", quick),
                "ZooKeeper connect string '127.0.0.1:notaport': '127.0.0.1:notaport' is not host:port (port 1..65535)");
        assertMessage(() -> CuratorCoordination.connect("a:1,,b:2", "c", quick), "'' is not host:port");
        assertMessage(() -> CuratorCoordination.connect("a:70000/synod", "c", quick), "'a:70000' is not host:port");
        assertMessage(() -> CoordinationOptions.defaults().withSuspendedStepDown(Duration.ofSeconds(10)),
                "suspended step-down (10000 ms) must be below the session timeout (10000 ms)");
    }
}
