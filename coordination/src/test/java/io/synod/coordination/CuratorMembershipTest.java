package io.synod.coordination;

import static io.synod.coordination.ZkFixture.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CuratorMembershipTest {
    private ZkFixture zk;

    @BeforeEach
    void start() throws Exception {
        zk = new ZkFixture();
        zk.connect("m").metadata().createCluster(ClusterSpec.defaults(3));
    }

    @AfterEach
    void stop() throws Exception {
        zk.close();
    }

    @Test
    void membersAppearPublishProgressAndVanishWithTheirSession() throws Exception {
        CuratorCoordination a = zk.connect("m");
        CuratorCoordination b = zk.connect("m");
        CuratorCoordination observer = zk.connect("m");
        List<Map<Integer, MemberInfo>> seen = new CopyOnWriteArrayList<>();
        observer.membership().addListener(seen::add);

        a.membership().register(MemberInfo.of(0, "127.0.0.1:7000", "127.0.0.1:8000", "z1", "test"));
        b.membership().register(MemberInfo.of(1, "127.0.0.1:7001", "127.0.0.1:8001", "z2", "test"));
        eventually("both members seen", () -> observer.membership().members().size() == 2);
        assertEquals("127.0.0.1:8001", observer.membership().members().get(1).clientAddress());
        assertEquals("z1", observer.membership().members().get(0).zone());

        // Progress updates are coalesced: many calls, the last value is what gets published.
        for (long slot = 1; slot <= 500; slot++) {
            a.membership().updateProgress(2, new GroupProgress(3, slot));
        }
        eventually("progress published", () -> observer.membership().members().get(0).progressOf(2)
                .equals(new GroupProgress(3, 500)));
        a.membership().updateProgress(0, new GroupProgress(1, 9));
        a.membership().flush();
        eventually("flushed progress seen", () -> observer.membership().members().get(0).progressOf(0)
                .equals(new GroupProgress(1, 9)));
        assertTrue(seen.size() >= 3, "listener saw joins and updates: " + seen.size());

        // A session that ends takes its member znode with it.
        zk.expireSession(b);
        eventually("expired member gone", () -> !observer.membership().members().containsKey(1));
        // Curator opens a new session and the persistent ephemeral node comes back.
        eventually("member re-registered after a new session", () -> observer.membership().members().containsKey(1));

        a.close();
        eventually("closed member gone", () -> !observer.membership().members().containsKey(0));
        assertEquals(Map.of(1, "127.0.0.1:7001"), Map.of(1, observer.membership().members().get(1).peerAddress()));
    }

    @Test
    void registeringTwiceIsRefusedAndMalformedMembersAreSkipped() throws Exception {
        CuratorCoordination a = zk.connect("m");
        a.membership().register(MemberInfo.of(0, "h:1", "h:2", "", ""));
        assertThrows(IllegalStateException.class, () -> a.membership().register(MemberInfo.of(0, "h:1", "h:2", "", "")));
        CuratorCoordination observer = zk.connect("m");
        observer.curator().create().forPath("/synod/m/members/7", new byte[] {1, 2});
        observer.curator().create().forPath("/synod/m/members/8",
                ZnodeCodec.encodeMember(MemberInfo.of(9, "h:1", "h:2", "", "")));
        a.membership().updateProgress(1, new GroupProgress(2, 2));
        a.membership().flush();
        eventually("good member seen with progress", () -> observer.membership().members().containsKey(0)
                && observer.membership().members().get(0).progressOf(1).lastSlot() == 2);
        assertEquals(List.of(0), List.copyOf(observer.membership().members().keySet()));
    }
}
